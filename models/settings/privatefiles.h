#pragma once

#include <QString>

namespace opsdeck::settings {

/// OpsDeck's own files — the data folder (history, audit log, pid files) and
/// the config folder (opsdeck.conf, the plaintext secrets file) — are the
/// user's alone, whatever the umask: folders are created 0700 and files 0600.
/// The files that matter (the audit log, the secrets file, the history
/// database and the lock files beside them) are never followed through a
/// symbolic link, which another user with write access to a parent folder
/// could plant to make OpsDeck write into a file of their choosing.
/// (Files meant for teammates on a host — the host's audit copy, the cluster
/// lock — are not these.) Thread: any; no state.
class PrivateFiles
{
public:
    /// Creates `dir` and its missing parents with mode 0700 (existing ones are
    /// left as they are). False with `error` naming the folder and the OS's reason.
    static bool makeDir(const QString &dir, QString *error = nullptr);

    /// Refuses `path` when it is a symbolic link ("… is a symbolic link:
    /// refused, OpsDeck does not follow links for its own files"); true when
    /// it is not one or does not exist.
    static bool refuseLink(const QString &path, QString *error = nullptr);

    /// Opens `path` (open(2) `flags`, O_NOFOLLOW, O_CLOEXEC and O_NONBLOCK added) and
    /// makes sure it is a regular file of this user with mode 0600: a looser
    /// mode is tightened (and said in the log); another owner or type, or a
    /// file with more than one hard link, is refused. A new file is created
    /// 0600. Returns the descriptor, or -1 with `error` naming the file.
    static int open(const QString &path, int flags, QString *error = nullptr);

    /// For files another library opens by name (SQLite's database, WAL and
    /// shared memory): true when `path` does not exist, or is a regular file
    /// of this user with one name; else false with `error` saying which (a
    /// link, a folder, another owner, hard links). Nothing is opened.
    static bool ownOrAbsent(const QString &path, QString *error = nullptr);

    /// True when `path` does not exist or is a regular file (not followed);
    /// else false with `error` naming what it is.
    static bool regularOrAbsent(const QString &path, QString *error = nullptr);
    /// Replaces `path` with `bytes` atomically: a new 0600 file
    /// `<path>.tmp` (created exclusively, so a link planted there is not
    /// followed), fsynced, renamed over `path` (a link at `path` is replaced,
    /// not followed). False with `error` naming the file; `path` unchanged.
    static bool replace(const QString &path, const QByteArray &bytes, QString *error = nullptr);
    /// Tightens an existing file of this user to 0600 when it is looser (it
    /// opens the file: never use it on a SQLite database this process has
    /// open, closing the descriptor would drop SQLite's POSIX locks);
    /// refuses a link, another owner or a non-file. True when absent.
    static bool tighten(const QString &path, QString *error = nullptr);
};

} // namespace opsdeck::settings
