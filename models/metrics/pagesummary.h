#pragma once

// The handful of engine values the console shows for one /metrics page, read
// from SGLang (`sglang:` names, or `sglang_` as the SGLang router and model
// gateways re-export them) and vLLM (`vllm:` names) pages.
//
// Rules, per value, trying the names in the order listed and using the FIRST
// name that has at least one series on the page (so a page carrying two
// spellings of one metric is never counted twice):
// - running: requests in the running batch (decode batch size), count.
//   `sglang:num_running_reqs`, `sglang_num_running_reqs`,
//   `vllm:num_requests_running`. Summed across series (dp ranks, engines).
// - waiting: requests queued, count. `sglang:num_queue_reqs`,
//   `sglang_num_queue_reqs`, `vllm:num_requests_waiting`. Summed.
// - kvUsage: KV-cache usage, ratio 0..1 (1 = full). `sglang:token_usage`,
//   `sglang_token_usage`, `vllm:kv_cache_usage_perc`, else the pre-rename
//   `vllm:gpu_cache_usage_perc` (never both). AVERAGED across series: a ratio
//   is not summed.
// - generationTokensTotal / promptTokensTotal: tokens generated / prefilled
//   since the engine started, counters. `sglang:generation_tokens_total`,
//   `sglang_generation_tokens_total`, `vllm:generation_tokens_total` (prompt:
//   the same with `prompt_`). Summed.
// NaN samples are skipped (an exporter's "no value"). A value is std::nullopt
// when the page has no series under any of its names (or only NaN ones).
//
// Names: SGLang python/sglang/srt/metrics/collector.py, vLLM
// vllm/v1/metrics/loggers.py (docs/design/metrics.md).
//
// Thread-safety: a pure function of the page; call it from any thread.

#include "metricpage.h"

#include <optional>

namespace opsdeck::metrics {

struct PageSummary
{
    std::optional<double> running;               ///< requests
    std::optional<double> waiting;               ///< requests
    std::optional<double> kvUsage;               ///< ratio 0..1
    std::optional<double> generationTokensTotal; ///< tokens, counter
    std::optional<double> promptTokensTotal;     ///< tokens, counter
};

PageSummary summarizePage(const MetricPage &page);

} // namespace opsdeck::metrics
