#pragma once

#include "batchcheckresult.h"
#include "diagnosis.h"
#include "verificationresult.h"

#include <QJsonObject>

namespace opsdeck::probes {

/// The JSON of a batch check: what `opsdeck-cli batch-check --json` prints
/// and what history's `checks` rows hold (one source for both). Keys, a
/// contract (issue 4): "verdict" ("BATCHED" | "SERIALIZED" | "PARTIAL", null
/// without a verdict), "n", "peak_running" (requests, null when unread),
/// "wall_s", "single_s" (s); then "failures", "ttft_p50_ms", "ttft_p99_ms",
/// "ttft_max_ms" (ms, null when no TTFT), "cluster", "path", "entry",
/// "model", "max_tokens", "started_at_ms", "reason", "error" (null when
/// none), "confirmation_required", "timed_out", "cancelled",
/// "samples_source", "samples" ([[offset_ms, running], ...]) and "requests"
/// ([{"index", "status", "ttft_ms", "total_ms", "end_ms", "local_port", "error"}]).
QJsonObject batchCheckToJson(const BatchCheckResult &result);

/// The JSON of a staged verification (`opsdeck-cli verify --json`, history):
/// "cluster", "passed", "ms", "started_at_ms", "error" (null when none),
/// "confirmation_required", "cancelled", "stages" ([{"name", "criterion",
/// "ran", "passed", "cancelled", "ms", "detail"}]: health, end-to-end, keep-alive,
/// batch-check; keep-alive absent when skipped), "keepalive_skipped" and
/// "batch" (the batch check's JSON, null when that stage did not run).
QJsonObject verificationToJson(const VerificationResult &result);

/// A stall diagnosis as JSON (`opsdeck-cli diagnose --json`'s "stall", the
/// watch's `checks` rows): "hop", "role", "evidence", "caution", "headline",
/// "path", "rounds", "decode_running_max", "decode_waiting_max" (null when not
/// read), "pooling_proxies", "stall_s", "stall_lower_bound_s" (null when not
/// measured), "first_stall_ms", "last_stall_ms" (ms since the Unix epoch),
/// "round_times" and "evidence_rows" ([{"path", "entry", "fresh", "reused"}]).
QJsonObject diagnosisToJson(const Diagnosis &diagnosis);
/// The inverse of diagnosisToJson (history readers); the role falls back to proxy.
Diagnosis diagnosisFromJson(const QJsonObject &json);

} // namespace opsdeck::probes
