#pragma once

#include "histogram.h"
#include "rankstats.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace opsdeck::sim {

/// Request-level metrics of an engine (what SGLang's TokenizerMetricsCollector
/// records) and the renderer of the whole /metrics page.
///
/// Family names, types, HELP texts and bucket bounds follow
/// sgl-project/sglang python/sglang/srt/metrics/collector.py (see
/// /work/shared/fixtures/metrics). Scheduler families carry the labels
/// dp_rank, engine_type, model_name, pp_rank, tp_rank (tp_rank = dp_rank, as
/// with DP attention), one series per rank; request families carry model_name.
/// Thread-safe: schedulers and handlers record, /metrics renders.
class EngineMetrics
{
public:
    /// `engineType`: "prefill", "decode" or "unified".
    EngineMetrics(std::string modelName, std::string engineType);

    void observeTtft(double seconds);
    /// One inter-token latency per token emitted in a step.
    void observeItl(const std::vector<double> &seconds);
    void requestFinished(int promptTokens, int completionTokens, double e2eSeconds);
    void requestAborted();

    std::uint64_t finishedRequests() const;
    std::uint64_t generationTokens() const;

    /// The Prometheus page for the given per-rank state.
    std::string render(const std::vector<RankStats> &ranks) const;

private:
    const std::string m_modelName;
    const std::string m_engineType;
    mutable std::mutex m_mutex;
    Histogram m_ttft;
    Histogram m_itl;
    Histogram m_e2e;
    std::uint64_t m_promptTokens = 0;
    std::uint64_t m_generationTokens = 0;
    std::uint64_t m_requests = 0;
    std::uint64_t m_aborted = 0;
};

} // namespace opsdeck::sim
