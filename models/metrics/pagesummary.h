#pragma once

// The engine values the console shows for one /metrics page, read through the
// engine profiles (engineprofile.h: which names, SGLang `sglang:` / `sglang_`,
// vLLM `vllm:`, router `sgl_router_` / `smg_`) and folded by the rules in
// aggregation.h (replicas once, counts summed, ratios averaged with the max,
// histograms summed per bucket).
//
// For each value the FIRST name present on the page is read (old and new
// names of one metric are never added: field case B10), and the name read is
// listed in `sources`. A value is std::nullopt when the page has no series
// under any of its names (or only NaN ones).
//
// The first five fields keep their meaning from before the profiles:
// running / waiting summed, kvUsage averaged, the token counters summed.
//
// Thread-safety: a pure function of the page; call it from any thread.

#include "conceptresolver.h"
#include "engineprofile.h"
#include "metricpage.h"

#include <optional>
#include <string>
#include <vector>

namespace opsdeck::metrics {

/// Which family a value was read from (for "kv_cache_usage_perc (vLLM >= rename)").
struct ConceptSource
{
    Concept which = Concept::Running;
    std::string family;
    Profile profile = Profile::Auto;
    std::string note;
};

struct PageSummary
{
    std::optional<double> running;               ///< requests
    std::optional<double> waiting;               ///< requests
    std::optional<double> kvUsage;               ///< ratio 0..1, mean over ranks/engines
    std::optional<double> generationTokensTotal; ///< tokens, counter
    std::optional<double> promptTokensTotal;     ///< tokens, counter

    /// The profile the names were read with (detected for Auto; Auto when the
    /// page holds no known name).
    Profile profile = Profile::Auto;
    std::optional<double> kvUsageMax;             ///< ratio 0..1, the hottest rank/engine
    std::optional<double> ttftMeanS;              ///< s, sum(_sum) / sum(_count)
    std::optional<double> itlMeanS;               ///< s
    std::optional<double> e2eMeanS;               ///< s
    std::optional<double> queueTimeMeanS;         ///< s
    std::optional<double> prefillBootstrapQueue;  ///< requests (PD prefill)
    std::optional<double> prefillInflightQueue;   ///< requests (PD prefill)
    std::optional<double> decodePreallocQueue;    ///< requests (PD decode)
    std::optional<double> decodeTransferQueue;    ///< requests (PD decode)
    std::optional<double> bootstrapFailuresTotal; ///< requests, counter
    std::optional<double> transferFailuresTotal;  ///< requests, counter
    std::optional<double> workersHealthy;         ///< router: workers reported healthy
    std::optional<double> workersTotal;           ///< router: workers reported
    /// hits / queries, both from the same naming generation (vLLM renamed the
    /// unit from blocks to tokens: never one name's hits over the other's queries).
    std::optional<double> prefixCacheHitRatio;

    /// One entry per value found, in Concept order.
    std::vector<ConceptSource> sources;
    /// Aggregation notes (replica copies that disagree), human-readable.
    std::vector<std::string> warnings;
};

/// Same as summarizePage(page, Profile::Auto).
PageSummary summarizePage(const MetricPage &page);
PageSummary summarizePage(const MetricPage &page, Profile profile);
/// With the page's names already resolved (`names` must be of `page`): a
/// caller that also reads rates or quantiles resolves them once.
PageSummary summarizePage(const MetricPage &page, const ConceptResolver &names);

} // namespace opsdeck::metrics
