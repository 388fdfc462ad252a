#pragma once

#include "remotefiles.h"

#include <QThreadPool>

namespace opsdeck::remote {

/// RemoteFiles on this machine, with POSIX calls (open, fstat, readdir,
/// fsync, fchown, fchmod, rename) on one worker thread of its own, so the
/// GUI thread never waits on a disk and operations keep their order.
/// The host of kind `local`, and the demo's.
class LocalFiles : public RemoteFiles
{
    Q_OBJECT
public:
    explicit LocalFiles(QString hostName = QStringLiteral("local"), QObject *parent = nullptr);
    /// Waits for the running operation; queued ones are dropped without a result.
    ~LocalFiles() override;

    QString hostName() const override { return m_hostName; }
    quint64 read(const QByteArray &path, qint64 cap = defaultReadCap) override;
    quint64 stat(const QByteArray &path) override;
    quint64 list(const QByteArray &path) override;
    quint64 write(const QByteArray &path, const QByteArray &data, uint newFileMode = 0644) override;

private:
    quint64 start(std::function<RemoteFileResult()> operation);

    QString m_hostName;
    quint64 m_nextId = 1;
    QThreadPool m_pool;
};

} // namespace opsdeck::remote
