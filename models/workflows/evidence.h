#pragma once

#include "diagnosis.h"
#include "inventory.h"

#include <QJsonObject>
#include <QString>
#include <optional>

namespace opsdeck::workflows {

/// What the console currently knows about a cluster (DESIGN.md glossary,
/// "evidence"), read from the data dir's history: the latest keep-alive stall
/// diagnosis (`diagnose`, the watch, the probe lab) and its age; the decode's
/// running and waiting requests (the recorder's latest samples); the last
/// staged verification. A plan shows it; EvidenceGuard weighs it. Plain data.
struct Evidence
{
    /// The newest diagnosis of the cluster within the last `kRecentS`.
    std::optional<probes::Diagnosis> stall;
    qint64 stallAtMs = 0; ///< when it was diagnosed, ms since the Unix epoch
    /// Summed over the cluster's decodes, the latest samples within 5 min;
    /// -1 when none was recorded.
    double decodeRunning = -1;
    double decodeWaiting = -1;
    qint64 loadAtMs = 0;
    QString lastVerification; ///< "passed 12 min ago" / "failed at keep-alive 3 min ago" / ""
    /// Set when something later than `stall` showed reused connections
    /// answering (a conclusive diagnosis or watch round without a stall, or a
    /// staged verification whose keep-alive stage passed): the stall no
    /// longer stands, and the evidence no longer points at it.
    qint64 stallClearedAtMs = 0;
    QString stallClearedBy; ///< what cleared it, in words
    qint64 nowMs = 0;       ///< when it was read
    QString source;         ///< the history file read, or why nothing could be
    /// A history file is there and could not be read: the evidence is not
    /// known (no history at all is simply none).
    bool unreadable = false;

    /// A diagnosis is "recent" for this long: the 30 minutes.
    static constexpr qint64 kRecentS = 30 * 60;

    /// Requests the diagnosis itself has in flight at once through a proxy
    /// and a router (ProbeRounds: at most 2 per path): a decode queue shorter
    /// than this is its own probes waiting a scheduler step.
    static constexpr double kOwnProbesAtOnce = 4;

    /// True when the evidence points at the connection layer: a keep-alive
    /// stall diagnosed at a proxy or router within kRecentS while the engines
    /// were idle: fewer requests waiting at the decodes than kOwnProbesAtOnce
    /// (or that not read; the diagnosis itself saw fresh requests answered at
    /// once through them).
    bool pointsAtConnectionLayer() const;
    /// "The evidence points at proxy-0: reused connections stall there while
    /// fresh ones answer and the engines are idle. ..." (empty when it does not).
    QString connectionLayerWarning(const QString &whatThePlanDoes) const;
    /// Lines for the plan: the stall and its age, the load, the last check.
    QStringList lines() const;
    /// {"stall": {hop, role, headline, age_s, decode_running_max,
    /// decode_waiting_max, cleared_by (what showed it gone since, or null)} |
    /// null, "decode_running", "decode_waiting" (null when
    /// not read), "last_verification", "points_at_connection_layer", "source"}.
    QJsonObject json() const;

    /// Reads the evidence of `cluster` from `databasePath` (a missing file is
    /// no evidence, said in `source`). Thread: any (a connection of its own).
    static Evidence read(const QString &databasePath, const inventory::Inventory &inventory,
                         const QString &cluster, qint64 nowMs);
};

} // namespace opsdeck::workflows
