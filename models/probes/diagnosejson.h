#pragma once

#include "diagnosis.h"
#include "proberounds.h"

#include <QJsonObject>
#include <optional>

namespace opsdeck::probes {

/// The JSON document of `opsdeck-cli diagnose --json` (issue 4; keys are a contract):
/// {"stall": null | {"hop", "role", "evidence", "caution", "path", "rounds", "headline",
///            "pooling_proxies", "stall_s", "stall_lower_bound_s"},
///  "paths": [{"name", "entry", "role", "depth", "url", "probe", "problem",
///             "stale_count", "stalling_rounds", "rounds": [{"round", "verdict", "reason",
///             "fresh_ms", "reused_ms", "reused_connection", "reused_local_port",
///             "fresh_connection_reused", "fresh_local_port", "reused_timed_out",
///             "reused_stale", "stale_idle_s", "fresh_status", "reused_status"}]}],
///  "cluster", "rounds", "idle_gap_s", "timeout_ms", "model", "cancelled",
///  "inconclusive", "inconclusive_reason"}.
/// `inconclusive` is true when no stall was found while some path never
/// answered (or was never probed), stalled in its last rounds but fewer than
/// the rounds that name a stall, or stopped answering: no stall can be ruled
/// out there, so the verdict is not "no stall" (exit 3); `inconclusive_reason`
/// names those paths (null when conclusive). A stall that was found is reported whatever other
/// paths did. Times in ms (curl's time_total), idle in s. `marker_id` and `stall_not_measured` (why
/// `--measure-stall` gave no length: cancelled, the probe failed; null otherwise) are added by the
/// caller. `stall_s`: how long the stall lasted as measured by `--measure-stall` (null when not
/// measured); `stall_lower_bound_s`: that probe's deadline when it timed out too (null otherwise).
/// A round's reused timeout is never the stall's length. `unanswered`: per path (probePaths()
/// order), "no probe answered: <first error>" when none of its warm-up, fresh and reused probes was
/// answered (empty otherwise); it becomes the path's "problem" when the factory had none.
/// `cancelled`: SIGINT/SIGTERM stopped the rounds early.
QJsonObject diagnoseJson(const QString &cluster, const probes::ProbeRounds &rounds,
                         const std::optional<probes::Diagnosis> &diagnosis,
                         const QStringList &unanswered, bool cancelled);

/// Why "no stall" cannot be said: "no stall seen on the paths that answered, but
/// 1 of 4 never answered, …: via proxy (proxy-0): no answer within 6000 ms",
/// "… via proxy (proxy-0) stalled in its last 2 of 2 rounds, fewer than the 3 …",
/// "… stopped answering in round 4: …", "no path answered: …", or "cancelled
/// after 1 of 3 rounds: …" (`cancelled`); "not decided: …" when every path
/// answered; empty when a stall was found, or when every path answered and ended clear.
QString inconclusiveReason(const probes::ProbeRounds &rounds,
                           const std::optional<probes::Diagnosis> &diagnosis,
                           const QStringList &unanswered, bool cancelled = false);

/// The same for people: one line per path and round, then the diagnosis;
/// "no keep-alive stall found" only when some path answered.
QStringList diagnoseText(const probes::ProbeRounds &rounds,
                         const std::optional<probes::Diagnosis> &diagnosis,
                         const QStringList &unanswered, bool cancelled);

} // namespace opsdeck::probes
