#pragma once

#include <QString>
#include <functional>

namespace opsdeck::history {

/// Which database file a SQLite WAL's frames apply to, kept beside it in
/// `<database>-walbase`, so that a WAL left by a killed process is never
/// replayed into a file restored by hand: SQLite replays any `<database>-wal`
/// into whatever file has the database's name, and a backup put in place
/// after a crash would be overwritten page by page (docs/history.md).
///
/// The record is the database file's device, inode, size and ctime (ns) as
/// they were after the last checkpoint: frames written after it apply to
/// exactly that file. A restore changes the inode (`mv`) or at least the
/// ctime (`cp` over it; a ctime cannot be set by hand). Every checkpoint runs
/// under the record's flock(2), with "checkpointing" written before and the
/// file's new record after, so that the WAL of a checkpoint that died midway
/// is still replayed, as SQLite's own recovery needs. SQLite must not write
/// the file on its own (the store turns automatic checkpoints off).
///
/// Thread: any; one instance per connection, used on its thread. Errors: a
/// record that cannot be read, written or locked (within 5 s) is "unknown",
/// and with an unknown record the WAL is left to SQLite, as without it; it
/// never fails an open.
class WalBase
{
public:
    explicit WalBase(QString databasePath);

    /// Before SQLite opens the database: a non-empty WAL that no process has
    /// open (no POSIX lock on `-shm`, from /proc/locks) and whose record names
    /// another file, or the same file changed since, is renamed with its
    /// `-shm` to `<name>.not-replayed-<UTC yyyyMMddTHHmmssZ>`. Returns the
    /// sentence saying so (naming both files), or empty when nothing moved.
    QString setAsideForeignWal();

    /// Runs `checkpoint` (which writes the WAL's frames into the database)
    /// under the record's lock and records the file as it is after it. When
    /// the lock is not had within 5 s, `checkpoint` is not run (the WAL keeps
    /// its frames for the next one).
    void checkpointed(const std::function<void()> &checkpoint);

private:
    QString m_database;
};

} // namespace opsdeck::history
