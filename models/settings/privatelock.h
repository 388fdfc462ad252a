#pragma once

#include <QLockFile>
#include <QString>

namespace opsdeck::settings {

/// The lock one OpsDeck process holds on one of its own files for a short
/// read-modify-write (an audit append, a change to the plaintext secrets
/// file), so that two processes never write one over the other. A lock file
/// (QLockFile: the holder's pid, host and program inside, stale once that
/// process is gone) beside the file, 0600, never followed through a link.
/// Held until the object is destroyed. Thread: the one that takes it.
class PrivateLock
{
public:
    /// `lockPath`: the lock file's absolute path (`<file>.lock`).
    explicit PrivateLock(const QString &lockPath);

    /// Waits up to `waitMs` milliseconds for the lock. False with `error`
    /// saying why: a link or a non-file at `lockPath`, the lock file not
    /// creatable (permission), or held past the wait — then naming the
    /// holder's program, pid and host ("locked by opsdeck-cli (pid 42 on
    /// box) for over 10 s (…): is it stopped or hung?").
    bool take(int waitMs, QString *error);

private:
    QString m_path;
    QLockFile m_lock;
};

} // namespace opsdeck::settings
