#pragma once

#include "remotefileresult.h"

#include <QObject>

namespace opsdeck::remote {

/// Reads, inspects and writes files on one host. Implementations:
/// LocalFiles (POSIX calls on a worker thread) and SftpFiles (SFTP on the
/// host's SSH session thread), with the same semantics:
/// - Paths are raw bytes (POSIX file names need not be UTF-8); relative paths
///   start at the login's home (SFTP) / the process's directory (local).
/// - Every call returns an id (never 0) at once and never blocks; its one
///   result arrives through fileFinished() carrying that id. Operations run
///   one after another in the order given.
/// - write() is atomic: the bytes go to a temp file in the same directory
///   (`.<name>.opsdeck-<random>`), are fsync'ed, get the old file's mode
///   and owner (uid, gid) when it existed (else `newFileMode`), and the temp
///   file is then renamed over the path. A reader, a crash or a lost
///   connection sees the old file or the new one, never a truncated one. An
///   interrupted write can leave its temp file behind (never under the
///   file's name); SftpFiles removes it at a later write (sftpoperations.h).
///   A path that is a symlink or not a regular file is refused.
/// Thread: use it from the thread it lives in.
class RemoteFiles : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    ~RemoteFiles() override = default;

    /// Bytes a read() keeps by default, as for command output.
    static constexpr qint64 defaultReadCap = 8 * 1024 * 1024;

    /// Host name as the inventory calls it, for messages.
    virtual QString hostName() const = 0;
    /// Up to `cap` bytes of a regular file (more: `truncated`).
    virtual quint64 read(const QByteArray &path, qint64 cap = defaultReadCap) = 0;
    /// The file or directory at `path`, following symlinks.
    virtual quint64 stat(const QByteArray &path) = 0;
    /// The entries of a directory.
    virtual quint64 list(const QByteArray &path) = 0;
    /// Replaces (or creates) `path` with `data` atomically (see above).
    /// `newFileMode`: permission bits of a file that did not exist.
    virtual quint64 write(const QByteArray &path, const QByteArray &data,
                          uint newFileMode = 0644) = 0;

Q_SIGNALS:
    void fileFinished(quint64 id, const opsdeck::remote::RemoteFileResult &result);
};

} // namespace opsdeck::remote
