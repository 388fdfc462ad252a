#pragma once

#include "remotefiles.h"

#include <QPointer>
#include <QSet>
#include <functional>
#include <memory>

namespace opsdeck::remote {

class SftpOperations;
class SshTransport;

/// RemoteFiles over SSH: SFTP (SftpOperations) on the session of an
/// SshTransport, in its session thread and job queue, so file operations and
/// commands share one connection, its reconnects and its state, and run in
/// the order given. One SFTP channel per operation. When the session cannot
/// be had (connect, host key or login failed, or a reconnect is pending) the
/// result's errorText says so, naming the host and the path.
/// A write cut off by a lost connection leaves its temp file; this object
/// keeps its name and the next write that succeeds removes it, with the
/// path's temp files an earlier process left (SftpOperations).
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
    /// Temp files our interrupted writes left (exact paths). Touched only in
    /// the session thread, one task at a time; shared so a task still queued
    /// when this object goes keeps it alive.
    std::shared_ptr<QSet<QByteArray>> m_leftovers = std::make_shared<QSet<QByteArray>>();
};

} // namespace opsdeck::remote
