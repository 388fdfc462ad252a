#pragma once

#include "transport.h"

#include <QHash>

class QProcess;

namespace opsdeck::remote {

/// Runs commands on this machine with QProcess (the demo's host, and any
/// inventory host of kind `local`). Each command runs in a new session
/// (setsid) so a deadline or cancel kills its whole process group, not just
/// the shell. Never blocks: no waitFor*. Thread: the one it was created in.
class LocalTransport : public Transport
{
    Q_OBJECT
public:
    explicit LocalTransport(QString hostName = QStringLiteral("local"), QObject *parent = nullptr);
    ~LocalTransport() override;

    QString hostName() const override { return m_hostName; }
    quint64 run(const CommandRequest &request) override;
    void cancel(quint64 id) override;
    int runningCount() const override { return static_cast<int>(m_jobs.size()); }

private:
    struct Job;
    void readOutput(Job &job);
    void finish(quint64 id, CommandResult result);
    void killGroup(Job &job, CommandResult::Outcome why);

    QString m_hostName;
    quint64 m_nextId = 1;
    QHash<quint64, Job *> m_jobs;
};

} // namespace opsdeck::remote
