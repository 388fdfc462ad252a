#pragma once

#include <QByteArray>
#include <QString>

namespace opsdeck::remote {

/// One read of a log file on a host: the "chunk protocol" LogTail speaks over
/// any Transport. Each poll is one short `bash -s` command (script()) that
/// never waits for the file to grow, because an SSH host runs one command at
/// a time (SshJobQueue) and a `tail -f` would hold every other command back.
///
/// The command prints one header line, then raw bytes of the file:
///   `opsdeck-log data SIZE INODE START\n` + at most maxBytes bytes from byte START
///   `opsdeck-log missing\n` | `opsdeck-log unreadable\n` | `opsdeck-log not-a-file\n`
/// SIZE (bytes) and INODE are from `stat -L` (GNU coreutils: Linux hosts)
/// taken just before the read, so the bytes may run past SIZE when the file
/// grows meanwhile. START is the offset asked for, except: 0 when the inode
/// differs from the one given or SIZE is below the offset (rotated or
/// truncated), and SIZE - firstReadBytes (or 0) on a first read (offset -1).
/// Pure data; any thread.
struct LogChunk
{
    enum class Kind
    {
        Data,       ///< fileSize, inode, start and bytes are set
        Missing,    ///< no file at the path
        Unreadable, ///< exists, but the login user may not read it
        NotAFile,   ///< a directory or other non-regular file
        Malformed   ///< no header line found: the output was not from script()
    };

    Kind kind = Kind::Malformed;
    qint64 fileSize = 0; ///< bytes, at the time of the read
    QByteArray inode;    ///< decimal inode number (a new number: the file was replaced)
    qint64 start = 0;    ///< file offset of bytes[0], bytes
    QByteArray bytes;    ///< raw file content, any encoding

    /// A first read takes at most this much of the file's end (256 KiB:
    /// several thousand log lines, one quick transfer even over a slow link).
    static constexpr qint64 defaultFirstReadBytes = 256 * 1024;
    /// Most bytes one poll transfers; a file that grew more is caught up by
    /// the following polls (1 MiB).
    static constexpr qint64 defaultMaxBytes = 1024 * 1024;

    /// The `bash -s` script that reads `path` from `offset` (-1: first read,
    /// the last `firstReadBytes`), expecting `inode` (empty: not known yet).
    /// `path` as the inventory writes it: a leading `~`, `~user`, `$NAME` or
    /// `${NAME}` is expanded by the host's shell, everything else is quoted.
    /// Returns an empty string and sets `error` for a path it will not run
    /// (empty, a NUL, or `$` not followed by a variable name, e.g. `$(cmd)`).
    static QString script(const QString &path, qint64 offset, const QByteArray &inode,
                          QString *error, qint64 firstReadBytes = defaultFirstReadBytes,
                          qint64 maxBytes = defaultMaxBytes);
    /// `path` as one shell word (see script()): e.g. `~/'logs/a b.log'`,
    /// `"$HOME"'/x.log'`, `'/var/log/decode.log'`. Empty with `error` set when refused.
    static QByteArray shellWord(const QString &path, QString *error);
    /// Reads the command's stdout. Text before the header (a login shell's
    /// banner) is skipped; a Malformed chunk has no data.
    static LogChunk parse(const QByteArray &standardOutput);
};

} // namespace opsdeck::remote
