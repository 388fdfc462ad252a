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
/// The record is the database file's size and mtime (ns) as they were after
/// the last checkpoint: frames written after it apply to exactly that file.
/// Only checkpoints write the file, and each sets its mtime; a backup put in
/// place has another mtime (`cp` writes it now; `mv` and `cp -p` bring the
/// backup's own, from when it was last written), while a data folder copied
/// whole with `cp -a` keeps its file and WAL together. Every checkpoint runs
/// under the record's flock(2), with "checkpointing", the file as it was and
/// the time it began written before and the file's new record after: the WAL
/// of a checkpoint that died midway is replayed (as SQLite's own recovery
/// needs) into the file as it was or as the checkpoint wrote it (written
/// since it began), while a backup moved in (`mv`, an older mtime) is still
/// foreign, and so is one copied over it (`cp`) more than 10 s after the
/// checkpoint began; one copied over it sooner cannot be told from the
/// checkpoint's own writes. A copy that keeps mtimes to the second (tar)
/// matches to the second with 0 ns. SQLite
/// must not write the file on its own (the store turns automatic
/// checkpoints off).
///
/// Thread: any; one instance per connection, used on its thread. Errors: a
/// record that cannot be read, written or locked (within 5 s) is "unknown",
/// and with an unknown record the WAL is left to SQLite, as without it; it
/// never fails an open.
class WalBase
{
public:
    explicit WalBase(QString databasePath);

    struct Check
    {
        /// Do not open: the WAL is foreign but still open in another process
        /// (moving it would split them from it), or it could not be moved.
        bool refuse = false;
        /// What was done or why not, naming the files; empty when nothing.
        QString text;
    };
    /// Before SQLite opens the database: a non-empty WAL whose record names
    /// another file (another size or mtime) is renamed with its `-shm` to
    /// `<name>.not-replayed-<UTC yyyyMMddTHHmmssZ>` when no process has it
    /// open (no POSIX lock on `-shm`, from /proc/locks), else refused.
    /// Without a WAL with frames, a file written outside (writtenOutside())
    /// while another connection has it open is refused too: that connection
    /// holds pages of the file as it was.
    Check setAsideForeignWal();

    /// Whether the file was written by something other than a checkpoint
    /// since the record was made: its size or mtime is not the record's (a
    /// backup copied over it in place while it was open; every open ends
    /// with a checkpoint, so SQLite's own writes as it sets a new file up are
    /// in the record). Then the text says so, naming the file; empty when it
    /// is the record's, or when the record is unknown or a checkpoint is in
    /// flight.
    QString writtenOutside() const;

    /// Runs `checkpoint` (which writes the WAL's frames into the database)
    /// under the record's lock and records the file as it is after it. When
    /// the lock is not had within 5 s, `checkpoint` is not run (the WAL keeps
    /// its frames for the next one). Nor, unless `adopt` (the checkpoint
    /// that ends an open, after SQLite set a new file up), when the file was
    /// written outside (writtenOutside()): its frames belong to the file as
    /// it was and are never written into another; false then.
    bool checkpointed(const std::function<void()> &checkpoint, bool adopt = false);

    /// After the last connection closed (SQLite removed the WAL): records the
    /// file as closed ("v2 size mtime_s mtime_ns closed"), so that a WAL found
    /// beside it later is another file's, set aside, even when the file and
    /// its record were copied in together (`cp -a backup/. data/` over a
    /// killed recorder's WAL). Nothing while a WAL is still there.
    void closed();

private:
    QString m_database;
};

} // namespace opsdeck::history
