#pragma once

#include <QString>

namespace opsdeck::history {

/// What AuditLog::check() found, as `opsdeck-cli audit --verify` prints it.
struct AuditVerification
{
    enum class Status
    {
        Intact,    ///< every line chains to the one before and the head names the last
        Broken,    ///< `line` was edited, removed, added or forged (see `reason`)
        Truncated, ///< fewer entries than the head counts: the end was cut off
        Unverified ///< keyed, and the key is not available here: links not checked
    };
    Status status = Status::Intact;
    int line = 0;        ///< the first bad line (Broken), from 1
    int entries = 0;     ///< lines in the file
    int headEntries = 0; ///< entries the head counts; -1 when there is no head
    /// Keyed: every line's `prev` is an HMAC-SHA256 with the key kept in the
    /// secret store, and it was checked with that key. False: plain SHA-256
    /// (anyone can recompute it), or the key was not available to check it.
    bool keyed = false;
    /// In words: the break or cut-off, and what the check could and could not
    /// cover ("unkeyed: no secret store answered (…)"). Intact: empty, or the
    /// last entry's writer died between its line and its head (counted, since
    /// the head named it first; what it records may not have happened).
    QString reason;
    QString keyNote;

    bool ok() const { return status == Status::Intact; }
    /// "intact", "broken", "truncated", "unverified".
    QString statusName() const;
};

} // namespace opsdeck::history
