// Field cases B07, B09, B10 (tests/data/metrics, origins in SOURCES.md):
// the values asserted are the ones their .expected files give.

#include "aggregation.h"
#include "conceptresolver.h"
#include "metricstesthelpers.h"
#include "pagesummary.h"

#include <gtest/gtest.h>

using namespace opsdeck::metrics;
using namespace opsdeck::metrics::test;

TEST(metricsProfileCases, B07VllmDataParallelPerEngineSeries)
{
    const MetricPage page = parseFile("B07_vllm_dp_per_engine_series.prom");
    const PageSummary s = summarizePage(page);
    EXPECT_EQ(s.profile, Profile::VLLM);
    EXPECT_EQ(s.running, 10); // 7 + 3; not 3 (last wins) or 7 (first match)
    EXPECT_EQ(s.waiting, 2);  // 2 + 0
    ASSERT_TRUE(s.kvUsage.has_value());
    EXPECT_DOUBLE_EQ(*s.kvUsage, 0.6); // mean; never 1.2
    EXPECT_EQ(s.kvUsageMax, 0.8);      // the hottest engine
    EXPECT_EQ(s.generationTokensTotal, 200000);
    ASSERT_TRUE(s.ttftMeanS.has_value());
    EXPECT_DOUBLE_EQ(*s.ttftMeanS, 0.4); // (20 + 60) / (100 + 100); last-wins gives 0.6
    EXPECT_TRUE(s.warnings.empty());

    const HistogramAggregate ttft =
        Aggregation::histogram(page, "vllm:time_to_first_token_seconds");
    EXPECT_EQ(ttft.count, 200);
    EXPECT_EQ(ttft.sum, 80);
    ASSERT_TRUE(ttft.shareAtOrBelow(0.1).has_value());
    EXPECT_DOUBLE_EQ(*ttft.shareAtOrBelow(0.1), 0.30); // (50 + 10) / 200

    // Per-engine drill-down keeps engine="0"/"1" separate.
    EXPECT_EQ(valueOf(page, "vllm:num_requests_running", {{"engine", "0"}}), 7);
    EXPECT_EQ(valueOf(page, "vllm:num_requests_running", {{"engine", "1"}}), 3);
}

TEST(metricsProfileCases, B09RouterPageUnderscoreSpelling)
{
    const MetricPage page = parseFile("B09_sglang_router_engine_metrics.prom");
    const PageSummary s = summarizePage(page);
    EXPECT_EQ(s.profile, Profile::SGLang);
    EXPECT_EQ(s.running, 6); // 4 + 2 across worker_addr
    EXPECT_EQ(s.waiting, 5); // 0 + 5
    EXPECT_EQ(valueOf(page, "sglang_num_running_reqs", {{"worker_addr", "http://127.0.0.1:30001"}}),
              4);
    EXPECT_EQ(valueOf(page, "sglang_num_running_reqs", {{"worker_addr", "http://127.0.0.1:30002"}}),
              2);
    ASSERT_FALSE(s.sources.empty());
    EXPECT_EQ(s.sources.front().family, "sglang_num_running_reqs");

    // Model identity: the router's org/model_v1 is the configured org/model:v1.
    for (const Sample *sample : page.samplesNamed("sglang_num_running_reqs"))
        EXPECT_TRUE(EngineProfile::sameModel("org/model:v1", sample->label("model_name")));
    EXPECT_FALSE(EngineProfile::sameModel("org/model:v2", "org/model_v1"));
    // worker_addr values keep their ':' (added by the router after the rewrite).
    EXPECT_EQ(valueOf(page, "sglang_num_queue_reqs", {{"worker_addr", "http://127.0.0.1:30002"}}),
              5);
}

TEST(metricsProfileCases, B09WorkerPagesPrefillAndDecode)
{
    const MetricPage prefill = parseFile("B09_sglang_worker_prefill.prom");
    const MetricPage decode = parseFile("B09_sglang_worker_decode.prom");
    EXPECT_EQ(summarizePage(prefill).running, 4);
    EXPECT_EQ(summarizePage(prefill).waiting, 1);
    EXPECT_EQ(summarizePage(decode).running, 38); // 20 + 18 across dp_rank
    EXPECT_EQ(summarizePage(decode).waiting, 2);  // 0 + 2
    EXPECT_TRUE(summarizePage(decode).warnings.empty());

    // One family over both pages: dp_rank only on decode; aggregation never fails.
    std::vector<const Sample *> running = prefill.samplesNamed("sglang:num_running_reqs");
    for (const Sample *s : decode.samplesNamed("sglang:num_running_reqs"))
        running.push_back(s);
    const Aggregate all = Aggregation::sum(running, "sglang:num_running_reqs");
    EXPECT_EQ(all.value, 42);
    EXPECT_EQ(all.groups, 3);
    EXPECT_TRUE(all.warnings.empty());
}

TEST(metricsProfileCases, B09BothSpellingsAreOneMetric)
{
    const std::string colon = readMetricsData("B09_sglang_worker_prefill.prom");
    std::string underscore = colon;
    for (std::size_t at = underscore.find("sglang:"); at != std::string::npos;
         at = underscore.find("sglang:", at))
        underscore[at + 6] = '_';
    const PageSummary a = summarizePage(ExpositionParser::parse(colon));
    const PageSummary b = summarizePage(ExpositionParser::parse(underscore));
    EXPECT_EQ(a.running, b.running);
    EXPECT_EQ(a.waiting, b.waiting);
    // Both spellings on one page: read once, not added.
    const PageSummary both = summarizePage(ExpositionParser::parse(colon + underscore));
    EXPECT_EQ(both.running, 4);
    EXPECT_EQ(both.waiting, 1);
}

TEST(metricsProfileCases, B10VllmRenameOldTransitionNew)
{
    struct Page
    {
        const char *file;
        const char *kvFamily;
        const char *queriesFamily;
    };
    for (const Page &p : {Page{"B10_vllm_old_names.prom", "vllm:gpu_cache_usage_perc",
                               "vllm:gpu_prefix_cache_queries_total"},
                          Page{"B10_vllm_transition_both_names.prom", "vllm:kv_cache_usage_perc",
                               "vllm:prefix_cache_queries_total"},
                          Page{"B10_vllm_new_names.prom", "vllm:kv_cache_usage_perc",
                               "vllm:prefix_cache_queries_total"}}) {
        SCOPED_TRACE(p.file);
        const PageSummary s = summarizePage(parseFile(p.file));
        EXPECT_EQ(s.profile, Profile::VLLM);
        EXPECT_EQ(s.kvUsage, 0.42);             // never 0.84, never blank
        EXPECT_EQ(s.prefixCacheHitRatio, 0.25); // 2500 / 10000
        std::string kvFamily;
        std::string kvNote;
        std::string queriesFamily;
        for (const ConceptSource &source : s.sources) {
            if (source.which == Concept::KvUsage) {
                kvFamily = source.family;
                kvNote = source.note;
            }
            if (source.which == Concept::PrefixCacheQueries)
                queriesFamily = source.family;
        }
        EXPECT_EQ(kvFamily, p.kvFamily);
        EXPECT_EQ(queriesFamily, p.queriesFamily);
        EXPECT_NE(kvNote.find(std::string(p.kvFamily).substr(5)), std::string::npos);
    }
    // The UI states which name was found.
    const MetricPage old = parseFile("B10_vllm_old_names.prom");
    const ConceptResolver legacy(old);
    EXPECT_EQ(legacy.resolve(Concept::KvUsage).note, "gpu_cache_usage_perc (legacy)");
}
