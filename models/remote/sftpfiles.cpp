#include "sftpfiles.h"

#include "sftpoperations.h"
#include "sshsession.h"
#include "sshtransport.h"

namespace opsdeck::remote {

SftpFiles::SftpFiles(SshTransport *transport, QObject *parent)
    : RemoteFiles(parent), m_transport(transport)
{
    qRegisterMetaType<RemoteFileResult>();
}

QString SftpFiles::hostName() const
{
    return m_transport->hostName();
}

quint64 SftpFiles::start(const char *name, const QByteArray &path,
                         std::function<RemoteFileResult(SftpOperations &)> operation)
{
    const quint64 id = m_nextId++;
    // The result goes through the transport, which outlives its queue's
    // thread; `self` is checked there, in this object's thread.
    QPointer<SftpFiles> self(this);
    SshTransport *transport = m_transport;
    const QString host = m_transport->hostName();
    const auto deliver = [self, transport, id](const RemoteFileResult &result) {
        QMetaObject::invokeMethod(
            transport,
            [self, id, result] {
                if (self)
                    Q_EMIT self->fileFinished(id, result);
            },
            Qt::QueuedConnection);
    };
    m_transport->runSessionTask([deliver, operation = std::move(operation), host,
                                 name = QLatin1String(name),
                                 path](SshSession *session, const QString &error) {
        if (!session) {
            RemoteFileResult result;
            result.errorText = QStringLiteral("host %1: %2 %3: %4")
                                   .arg(host, name, QString::fromUtf8(path), error);
            deliver(result);
            return true;
        }
        SftpOperations sftp(session->handle(), host);
        if (!sftp.open()) {
            if (sftp.sessionLost())
                return false; // nothing done yet: the queue reconnects and retries once
            RemoteFileResult result;
            result.errorText = sftp.errorText();
            deliver(result);
            return true;
        }
        deliver(operation(sftp));
        return true;
    });
    return id;
}

quint64 SftpFiles::read(const QByteArray &path, qint64 cap)
{
    return start("read", path, [path, cap](SftpOperations &sftp) { return sftp.read(path, cap); });
}

quint64 SftpFiles::stat(const QByteArray &path)
{
    return start("stat", path, [path](SftpOperations &sftp) { return sftp.stat(path); });
}

quint64 SftpFiles::list(const QByteArray &path)
{
    return start("list", path, [path](SftpOperations &sftp) { return sftp.list(path); });
}

quint64 SftpFiles::write(const QByteArray &path, const QByteArray &data, uint newFileMode)
{
    return start("write", path,
                 [path, data, newFileMode, leftovers = m_leftovers](SftpOperations &sftp) {
                     return sftp.write(path, data, newFileMode, leftovers.get());
                 });
}

} // namespace opsdeck::remote
