#pragma once

#include "remotefiles.h"

#include <QPointer>
#include <functional>

namespace opsdeck::remote {

class SftpOperations;
class SshTransport;

/// RemoteFiles over SSH: SFTP (SftpOperations) on the session of an
/// SshTransport, in its session thread and job queue, so file operations and
/// commands share one connection, its reconnects and its state, and run in
/// the order given. One SFTP channel per operation. When the session cannot
/// be had (connect, host key or login failed, or a reconnect is pending) the
/// result's errorText says so, naming the host and the path.
/// Thread: the transport's.
class SftpFiles : public RemoteFiles
{
    Q_OBJECT
public:
    /// `transport` must outlive this object.
    explicit SftpFiles(SshTransport *transport, QObject *parent = nullptr);

    QString hostName() const override;
    quint64 read(const QByteArray &path, qint64 cap = defaultReadCap) override;
    quint64 stat(const QByteArray &path) override;
    quint64 list(const QByteArray &path) override;
    quint64 write(const QByteArray &path, const QByteArray &data, uint newFileMode = 0644) override;

private:
    quint64 start(const char *name, const QByteArray &path,
                  std::function<RemoteFileResult(SftpOperations &)> operation);

    SshTransport *m_transport;
    quint64 m_nextId = 1;
};

} // namespace opsdeck::remote
