#pragma once

#include "diagnosis.h"
#include "proberounds.h"

#include <QJsonObject>
#include <optional>

namespace opsdeck::cli {

/// The JSON document of `opsdeck-cli diagnose --json` (issue 4; keys are a contract):
/// {"stall": null | {"hop", "role", "evidence", "caution", "path", "rounds", "headline"},
///  "paths": [{"name", "entry", "role", "depth", "url", "probe", "problem",
///             "stale_count", "stalling_rounds", "rounds": [{"round", "verdict", "reason",
///             "fresh_ms", "reused_ms", "reused_connection", "reused_local_port",
///             "fresh_connection_reused", "fresh_local_port", "reused_timed_out",
///             "reused_stale", "stale_idle_s", "fresh_status", "reused_status"}]}],
///  "cluster", "rounds", "idle_gap_s", "timeout_ms", "model"}.
/// Times in ms (curl's time_total), idle in s. `marker_id` is added by the caller.
QJsonObject diagnoseJson(const QString &cluster, const probes::ProbeRounds &rounds,
                         const std::optional<probes::Diagnosis> &diagnosis);

/// The same for people: one line per path and round, then the diagnosis.
QStringList diagnoseText(const probes::ProbeRounds &rounds,
                         const std::optional<probes::Diagnosis> &diagnosis);

} // namespace opsdeck::cli
