#pragma once

#include <QString>

namespace opsdeck::probes {

/// What a batch check concluded about the decode service (issue 4, "Batch check").
enum class BatchVerdict
{
    /// No verdict: the check did not run, or the numbers it needs are missing
    /// (BatchCheckResult::error says why).
    None,
    /// The N requests ran together: peak running >= 0.75 x N and wall <= 2 x single.
    Batched,
    /// They ran one (or two) at a time: peak running <= 2 or wall >= 0.75 x N x single.
    Serialized,
    /// Neither: some batching, less than N (a running-request limit, KV pool full...).
    Partial,
};

/// "BATCHED", "SERIALIZED", "PARTIAL" (the CLI's JSON values), "NONE".
QString batchVerdictName(BatchVerdict verdict);

/// The verdict of a batch check of `n` requests (n >= 1) whose decode showed
/// at most `peakRunning` running requests (summed over decode services and dp
/// ranks), whose batch took `wallS` seconds from submission to the last
/// answer, and whose single request alone took `singleS` seconds (> 0).
///
/// Thresholds are the issue's. The conditions overlap for small N (n = 2,
/// peak 2), so the order is fixed: BATCHED when both its conditions hold,
/// else SERIALIZED when either of its conditions holds, else PARTIAL. BATCHED
/// first because it demands the most evidence (two conditions, both measured)
/// and because for N <= 2 "peak running <= 2" is true of a fully batched run.
/// `singleS <= 0` or `n < 1` give None. Pure; any thread.
BatchVerdict batchVerdict(int n, double peakRunning, double wallS, double singleS);

/// The verdict with the numbers that decided it, for people, e.g.
/// "BATCHED: peak running 16 >= 12 (0.75 x N 16) and wall 2.10 s <= 2.70 s (2 x single 1.35 s)".
QString batchVerdictReason(int n, double peakRunning, double wallS, double singleS);

} // namespace opsdeck::probes
