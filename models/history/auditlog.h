#pragma once

#include "auditentry.h"

#include <QString>
#include <QVector>
#include <mutex>

namespace opsdeck::history {

/// The append-only audit log, `<data dir>/audit.jsonl`: one JSON object per
/// line, keys `time` (ISO 8601 UTC, ms), `user`, `program`, `pid`, `kind`,
/// `host`, `action`, `detail`, and `prev`: the SHA-256 (hex) of the previous
/// line's bytes (64 zeros for the first), so a line removed or edited later
/// breaks the chain that verify() checks. JSON Lines, not SQLite, so that an
/// operator can read it with `less` and `grep` when OpsDeck itself cannot start.
///
/// Several processes (the window, opsdeck-cli) may append at once: each
/// append holds `audit.jsonl.lock` (QLockFile) while it reads the last line
/// and writes its own, then fsyncs before returning, so an entry that
/// append() reported is on disk.
/// Thread: any (a mutex serialises this process's appends); append() blocks
/// for one small write + fsync, so call it off the GUI thread when possible.
class AuditLog
{
public:
    /// `path` of the log file; its folder is created on the first append.
    explicit AuditLog(QString path);
    /// `<dataDir>/audit.jsonl`.
    static QString pathIn(const QString &dataDir);

    /// Appends `entry`; false with `error` (naming the file, or its lock file
    /// when that cannot be created) when it could not be written whole (then
    /// nothing was appended: the line is one write()). A last line cut off
    /// without its newline stays as it is: the entry goes on a line of its own
    /// after it and chains to it, so verify() names only that line.
    bool append(const AuditEntry &entry, QString *error = nullptr);

    /// Every entry in file order; an unreadable line is skipped and named in `problems`
    /// (`FILE:LINE: reason`).
    QVector<AuditEntry> read(QStringList *problems = nullptr) const;

    /// Checks the hash chain; empty when intact (or the file does not exist),
    /// else `FILE:LINE: reason` of the first break.
    QString verify() const;

    QString path() const { return m_path; }

private:
    QString m_path;
    std::mutex m_mutex;
};

} // namespace opsdeck::history
