#pragma once

#include <QString>

namespace opsdeck::probes {

/// What a batch check concluded about the decode service (issue 4, "Batch check").
enum class BatchVerdict
{
    /// No verdict: the check did not run, or the numbers it needs are missing
    /// (BatchCheckResult::error says why).
    None,
    /// The N requests ran together: peak running >= 0.75 x N and a speed-up
    /// (batchSpeedUp) of at least 2 (1.5 for N = 2) over running them one after another.
    Batched,
    /// They ran one (or two) at a time: peak running <= 2 or a speed-up of at most
    /// 1.33 (wall >= 0.75 x N x single), which is what `--max-running-requests 1` gives.
    Serialized,
    /// Neither: partial admission, fewer than 0.75 x N ran at once (a running-request
    /// limit such as `--max-running-requests N/4`, a full KV pool...).
    Partial,
};

/// "BATCHED", "SERIALIZED", "PARTIAL" (the CLI's JSON values), "NONE".
QString batchVerdictName(BatchVerdict verdict);

/// How much faster the batch ran than its `n` requests would one after
/// another: n x singleS / wallS (times, no unit). 0 when n < 1 or a time is
/// not positive. Pure; any thread.
double batchSpeedUp(int n, double wallS, double singleS);

/// The verdict of a batch check of `n` requests (n >= 1) whose decode showed
/// at most `peakRunning` running requests (summed over decode services and dp
/// ranks), whose batch took `wallS` seconds from submission to the last
/// answer, and whose single request alone took `singleS` seconds (> 0).
///
/// Batching is judged by peak running and by the speed-up, never by wall
/// against single alone: a decode step grows with the batch, so 64 requests
/// that all ran at once take about 3x one request (sim: 4.2 s vs 1.3 s, 20x
/// faster than one after another). The conditions overlap for small N
/// (n = 2, peak 2), so the order is fixed: BATCHED when both its conditions
/// hold, else SERIALIZED when either of its conditions holds, else PARTIAL.
/// `singleS <= 0`, `wallS <= 0` or `n < 1` give None. Pure; any thread.
BatchVerdict batchVerdict(int n, double peakRunning, double wallS, double singleS);

/// The numbers that decided the verdict as a sentence, e.g. "peak 64 of 64
/// running; 64 requests in 4.19 s, 20× faster than one after another (single
/// 1.33 s)"; SERIALIZED and PARTIAL add what that means. Without a verdict:
/// "not measured: ...".
QString batchVerdictReason(int n, double peakRunning, double wallS, double singleS);

} // namespace opsdeck::probes
