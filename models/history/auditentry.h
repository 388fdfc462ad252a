#pragma once

#include <QDateTime>
#include <QString>

namespace opsdeck::history {

/// One line of the audit log (auditlog.h): something OpsDeck decided or did
/// on a host. Never holds a secret: callers pass names, fingerprints and
/// commands, not passwords or keys.
struct AuditEntry
{
    int line = 0; ///< its line number in the log, from 1 (read() sets it; `id` in `audit --json`)
    QString user; ///< who ran the program (read() sets it; append() writes the current user)
    QString program; ///< which program wrote it (read() sets it; append() writes this one)
    QDateTime time;  ///< when it was decided (UTC when written); null: now
    QString kind;    ///< what kind of decision, e.g. `host-key`
    QString host;    ///< the host it concerns (inventory name or ssh alias); may be empty
    QString action;  ///< the decision, e.g. `accepted-new`, `refused-changed`
    QString detail;  ///< free text for the reader (fingerprint, known_hosts file, reason)
    /// The workflow it belongs to (its journal's id); empty for others.
    QString workflow;
    /// The history marker it wrote (its id in history.sqlite); 0: none.
    qint64 markerId = 0;
};

} // namespace opsdeck::history
