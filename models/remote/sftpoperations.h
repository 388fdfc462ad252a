#pragma once

#include "remotefileresult.h"

#include <QSet>
#include <chrono>
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
///
/// Temp files left behind: a write whose connection is lost cannot remove
/// its temp file. The caller keeps such names (`leftovers`, exact paths) and
/// the next write that succeeds removes them; it also removes the temp files
/// of its own path that an earlier process left (isAtomicTempName(), a
/// regular file, owned by the login user, unmodified for staleTempAge by the
/// server's clock, read from the new file's mtime so clock skew does not
/// matter). A live write changes its temp file all the time, so it is not
/// taken for stale; one stalled that long would fail at its rename with the
/// old file intact. Removal failures are logged, never a failed write.
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
    /// `leftovers` (may be null): temp paths earlier writes of this caller
    /// could not remove; updated (see above). Session thread only.
    RemoteFileResult write(const QByteArray &path, const QByteArray &data, uint newFileMode,
                           QSet<QByteArray> *leftovers = nullptr);

    /// A temp file of the path unmodified this long is an abandoned one (s).
    static constexpr std::chrono::seconds staleTempAge{600};

private:
    RemoteFileResult failure(const char *operation, const QByteArray &path,
                             const QString &cause = {}) const;
    QString cause() const;
    bool renameOver(const QByteArray &from, const QByteArray &to, QString &error);
    void removeStaleTemps(const QByteArray &path, const sftp_attributes_struct &fresh,
                          QSet<QByteArray> *leftovers);

    ssh_session m_session;
    QString m_hostName;
    sftp_session m_sftp = nullptr;
    QString m_error;
};

} // namespace opsdeck::remote
