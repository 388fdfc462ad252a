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
///  "cluster", "rounds", "idle_gap_s", "timeout_ms", "model", "cancelled"}.
/// Times in ms (curl's time_total), idle in s. `marker_id` is added by the caller.
/// `unanswered`: per path (probePaths() order), "no probe answered: <first
/// error>" when none of its warm-up, fresh and reused probes was answered
/// (empty otherwise); it becomes the path's "problem" when the factory had none.
/// `cancelled`: SIGINT/SIGTERM stopped the rounds early.
QJsonObject diagnoseJson(const QString &cluster, const probes::ProbeRounds &rounds,
                         const std::optional<probes::Diagnosis> &diagnosis,
                         const QStringList &unanswered, bool cancelled);

/// The same for people: one line per path and round, then the diagnosis;
/// "no keep-alive stall found" only when some path answered.
QStringList diagnoseText(const probes::ProbeRounds &rounds,
                         const std::optional<probes::Diagnosis> &diagnosis,
                         const QStringList &unanswered, bool cancelled);

} // namespace opsdeck::cli
