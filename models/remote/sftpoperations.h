#pragma once

#include "remotefileresult.h"

#include <libssh/libssh.h>
#include <libssh/sftp.h>

namespace opsdeck::remote {

/// The file operations of RemoteFiles over one SFTP channel of a connected
/// session, blocking (the session's thread, inside an SshJobQueue task).
/// Each libssh call is bounded by the session's timeout, so a dead peer ends
/// an operation with an error, never a hang.
///
/// write() follows RemoteFiles' atomic recipe with SFTP requests: open the
/// temp file with O_EXCL, write, fsync (fsync@openssh.com), chown/chmod,
/// then rename it over the path. SFTP v3's RENAME refuses an existing
/// target (OpenSSH's sftp-server links, then unlinks), and libssh 0.10 cannot
/// send posix-rename@openssh.com, so an existing file is replaced by
/// `mv -f -T -- TEMP PATH` (rename(2), atomic in one directory) on an exec
/// channel of the same session; a new file by SFTP RENAME.
class SftpOperations
{
public:
    SftpOperations(ssh_session session, QString hostName);
    ~SftpOperations();
    SftpOperations(const SftpOperations &) = delete;
    SftpOperations &operator=(const SftpOperations &) = delete;

    /// Starts the SFTP subsystem. False: see errorText(); sessionLost()
    /// says whether the session was already gone (then nothing was done).
    bool open();
    QString errorText() const { return m_error; }
    bool sessionLost() const;

    RemoteFileResult read(const QByteArray &path, qint64 cap);
    RemoteFileResult stat(const QByteArray &path);
    RemoteFileResult list(const QByteArray &path);
    RemoteFileResult write(const QByteArray &path, const QByteArray &data, uint newFileMode);

private:
    RemoteFileResult failure(const char *operation, const QByteArray &path,
                             const QString &cause = {}) const;
    QString cause() const;
    bool renameOver(const QByteArray &from, const QByteArray &to, QString &error);

    ssh_session m_session;
    QString m_hostName;
    sftp_session m_sftp = nullptr;
    QString m_error;
};

} // namespace opsdeck::remote
