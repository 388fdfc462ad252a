#pragma once

#include "auditanchor.h"
#include "auditentry.h"
#include "auditverification.h"

#include <QByteArray>
#include <QString>
#include <QVector>
#include <functional>
#include <mutex>
#include <optional>

namespace opsdeck::history {

/// The append-only audit log, `<data dir>/audit.jsonl`: one JSON object per
/// line, keys `time` (ISO 8601 UTC, ms), `user`, `program`, `pid`, `kind`,
/// `host`, `action`, `detail` (and `workflow`, `marker_id` on a workflow's
/// entries), and `prev`: the hash (hex) of the previous
/// line's bytes (64 zeros for the first), so a line removed or edited later
/// breaks the chain that check() follows. JSON Lines, not SQLite, so that an
/// operator can read it with `less` and `grep` when OpsDeck itself cannot start.
///
/// Keyed chain: a log begun while the secret store answers gets a key of its
/// own there (AuditKey); then every line's `prev` is HMAC-SHA256(key,
/// previous line) and the line carries `"keyed":true`, so a chain recomputed
/// without the key fails — unkeyed lines in a log that has a key are a break.
/// A log begun without a store stays unkeyed (plain SHA-256: it catches
/// accidents and careless edits, not a rewrite) and check() says so. A keyed
/// log refuses to append while its key is unavailable (the action then does
/// not run).
///
/// Head: `audit.jsonl.head` holds the entry count, the file's size and the
/// last line's hash (with an HMAC of those when keyed), replaced atomically
/// with every append, so cut-off or lost entries at the end are caught too.
/// An append after a cut counts on from the head, so the cut stays visible.
/// A keyed log is also anchored in the secret store (AuditAnchor), so that an
/// older log put back with its older head is caught as well.
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
    /// This log's chain key as the secret store answered.
    struct ChainKey
    {
        enum class State
        {
            Key,        ///< `key` is this log's key
            None,       ///< the store answered: this log has no key (begun without one)
            Unavailable ///< no store answered; `problem` says why
        };
        ChainKey() = default;
        ChainKey(State state, QByteArray key, QString problem, bool created = false)
            : state(state), key(std::move(key)), problem(std::move(problem)), created(created)
        {
        }
        State state = State::Unavailable;
        QByteArray key;
        QString problem;
        /// The key was made just now, for a log with no entry: a log that is
        /// empty while its key already existed was emptied (or removed).
        bool created = false;
        /// The log's anchor as the store keeps it (Key only; none before the
        /// first keyed append, or in a store that never kept one).
        std::optional<AuditAnchor> anchor;
        std::optional<QByteArray> usable() const
        {
            return state == State::Key ? std::optional<QByteArray>(key) : std::nullopt;
        }
    };
    /// Asked for the key of the log at `logPath`; `create`: the log is new,
    /// make it a key when the store has none.
    using KeySource = std::function<ChainKey(const QString &logPath, bool create)>;
    /// Told where a keyed log's chain now reaches, after an append that
    /// found the log still holding the anchor it knew (see AuditAnchor).
    /// Called on the appending thread, with this log's append lock held.
    using AnchorSink = std::function<void(const QString &logPath, const AuditAnchor &anchor)>;

    /// `path` of the log file; its folder is created (0700) on the first
    /// append, the log and its head 0600. `keySource` is asked on the first
    /// append or check, and again to create a key for a new log (empty: an
    /// unkeyed chain). `anchorSink` keeps the anchor of a keyed log (empty:
    /// only the head guards its end).
    explicit AuditLog(QString path, KeySource keySource = {}, AnchorSink anchorSink = {});
    /// `<dataDir>/audit.jsonl`.
    static QString pathIn(const QString &dataDir);
    /// The user entries are written as: the login name of this process's uid
    /// (its number when it has none).
    static QString currentUser();
    /// Whether line `anchor.entries` of the log at `path` has the anchor's
    /// link under `key` (reads the file up to that line; false when shorter).
    static bool holdsAnchor(const QString &path, const AuditAnchor &anchor, const QByteArray &key);

    /// Appends `entry`; false with `error` (naming the file, or its lock file
    /// when that cannot be created) when it could not be written whole (then
    /// nothing was appended: the line is one write()). A last line cut off
    /// without its newline stays as it is: the entry goes on a line of its own
    /// after it and chains to it, so verify() names only that line.
    bool append(const AuditEntry &entry, QString *error = nullptr);

    /// Every entry in file order; an unreadable line is skipped and named in `problems`
    /// (`FILE:LINE: reason`).
    QVector<AuditEntry> read(QStringList *problems = nullptr) const;

    /// Follows the chain and compares it with the head: intact, broken at a
    /// line, or truncated; and whether the chain was checked with its key.
    /// Another process appending meanwhile is not a break: a result other
    /// than intact stands only when the head and the log did not change
    /// while they were read (else read again, up to 10 times).
    AuditVerification check() const;
    /// check() in one line: empty when intact (or there is no file), else
    /// `FILE:LINE: reason` of the first break, or `FILE: reason` of a cut.
    QString verify() const;

    QString path() const { return m_path; }
    /// `<path>.head`.
    QString headPath() const { return m_path + QStringLiteral(".head"); }

private:
    /// One reading of check(), with no regard to writers.
    AuditVerification checkOnce() const;
    ChainKey chainKey(bool create) const;
    /// After a keyed append: moves the anchor to `reached` when the log still
    /// holds the one known (`prevLink`: the link of the line before ours).
    void moveAnchor(const ChainKey &chain, qint64 headEntries, const QByteArray &prevLink,
                    const AuditAnchor &reached);
    /// The anchor this process knows: the store's at first, then its own.
    std::optional<AuditAnchor> knownAnchor(const ChainKey &chain) const;

    QString m_path;
    KeySource m_keySource;
    AnchorSink m_anchorSink;
    std::optional<AuditAnchor> m_anchor; ///< moved by this object (guarded by m_mutex)
    mutable std::mutex m_mutex;
    bool m_appended = false; ///< this object appended before (guarded by m_mutex)
    mutable std::mutex m_keyMutex;
    mutable std::optional<ChainKey> m_key;
};

} // namespace opsdeck::history
