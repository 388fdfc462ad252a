#pragma once

#include "commandrequest.h"
#include "commandresult.h"

#include <QObject>

namespace opsdeck::remote {

/// Runs commands on one host. Implementations (local QProcess now, SSH
/// later) share these semantics: run() never blocks, every result arrives
/// through commandFinished() carrying the id run() returned, and a command
/// always ends (deadline, cancel) with one CommandResult.
/// Thread: use a transport from the thread it lives in.
class Transport : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    ~Transport() override = default;

    /// Host name as the inventory calls it, for messages.
    virtual QString hostName() const = 0;
    /// Starts `request`; returns its id (never 0).
    virtual quint64 run(const CommandRequest &request) = 0;
    /// Kills the command if it still runs; its result is then Cancelled.
    virtual void cancel(quint64 id) = 0;
    /// Commands started and not yet finished.
    virtual int runningCount() const = 0;

Q_SIGNALS:
    void commandFinished(quint64 id, const opsdeck::remote::CommandResult &result);
};

} // namespace opsdeck::remote
