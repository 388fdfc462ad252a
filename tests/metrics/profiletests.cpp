// Engine profiles on the real pages (fixtures 01-05) and the aggregation rules
// on small pages: replicas, mixed engines, profile override.

#include "aggregation.h"
#include "conceptresolver.h"
#include "engineprofile.h"
#include "metricstesthelpers.h"
#include "pagesummary.h"

#include <gtest/gtest.h>

using namespace opsdeck::metrics;
using namespace opsdeck::metrics::test;

namespace {

std::string sourceOf(const PageSummary &s, Concept which)
{
    for (const ConceptSource &source : s.sources)
        if (source.which == which)
            return source.family;
    return {};
}

} // namespace

TEST(metricsProfiles, Fixture01SglangDocsLatencies)
{
    const PageSummary s =
        summarizePage(parseFile("01-sglang_docs_production_metrics_example.prom"));
    EXPECT_EQ(s.profile, Profile::SGLang);
    ASSERT_TRUE(s.itlMeanS && s.ttftMeanS && s.e2eMeanS);
    // ITL under its older name time_per_output_token.
    EXPECT_DOUBLE_EQ(*s.itlMeanS, 866964.5791549598 / 7400757);
    EXPECT_EQ(sourceOf(s, Concept::Itl), "sglang:time_per_output_token_seconds");
    EXPECT_DOUBLE_EQ(*s.ttftMeanS, 2351897.9474117756 / 11008);
    EXPECT_DOUBLE_EQ(*s.e2eMeanS, 3116093.850019932 / 11228);
    EXPECT_EQ(s.kvUsage, 0.28);
    EXPECT_EQ(s.kvUsageMax, 0.28);
    EXPECT_FALSE(s.queueTimeMeanS.has_value());
    EXPECT_FALSE(s.prefillBootstrapQueue.has_value());
    EXPECT_FALSE(s.workersHealthy.has_value());

    const MetricPage page = parseFile("01-sglang_docs_production_metrics_example.prom");
    const HistogramAggregate ttft =
        Aggregation::histogram(page, "sglang:time_to_first_token_seconds");
    ASSERT_TRUE(ttft.shareAtOrBelow(1.0).has_value());
    EXPECT_DOUBLE_EQ(*ttft.shareAtOrBelow(1.0), 27.0 / 11008);
}

TEST(metricsProfiles, Fixture02DpAttentionRanksAreSummed)
{
    const PageSummary s =
        summarizePage(parseFile("02-sglang_dp_attention_multirank_aibrix1614.prom"));
    EXPECT_EQ(s.profile, Profile::SGLang);
    EXPECT_EQ(s.waiting, 0);
    EXPECT_TRUE(s.warnings.empty()); // dp ranks differ: not replicas
}

TEST(metricsProfiles, Fixture03TwoModelsAndABucketOnlyHistogram)
{
    const MetricPage page = parseFile("03-sglang_engine_type_label_pr7944_pr4444.prom");
    const PageSummary s = summarizePage(page);
    EXPECT_EQ(s.running, 0);
    EXPECT_EQ(s.kvUsage, 0);
    EXPECT_EQ(s.kvUsageMax, 0);
    // Buckets without _sum: no mean (not 0 s).
    EXPECT_FALSE(s.e2eMeanS.has_value());
    EXPECT_EQ(sourceOf(s, Concept::E2e), "sglang:e2e_request_latency_seconds");
}

TEST(metricsProfiles, Fixture04Vllm)
{
    const PageSummary s = summarizePage(parseFile("04-vllm_metrics_examples.prom"));
    EXPECT_EQ(s.profile, Profile::VLLM);
    EXPECT_EQ(s.running, 8);
    EXPECT_EQ(s.generationTokensTotal, 27453);
    // TTFT has _count (140) but no _sum on this page; queue time only buckets.
    EXPECT_FALSE(s.ttftMeanS.has_value());
    EXPECT_EQ(sourceOf(s, Concept::Ttft), "vllm:time_to_first_token_seconds");
    EXPECT_EQ(sourceOf(s, Concept::QueueTime), "vllm:request_queue_time_seconds");
    const MetricPage page = parseFile("04-vllm_metrics_examples.prom");
    EXPECT_EQ(Aggregation::histogram(page, "vllm:time_to_first_token_seconds").count, 140);
    EXPECT_DOUBLE_EQ(
        *Aggregation::histogram(page, "vllm:time_to_first_token_seconds").shareAtOrBelow(0.04),
        97.0 / 140);
    EXPECT_EQ(Aggregation::histogram(page, "vllm:request_queue_time_seconds").count, 3);
}

TEST(metricsProfiles, Fixture05GatewayReexportPdQueue)
{
    const PageSummary s =
        summarizePage(parseFile("05-smg_gateway_reexport_of_sglang_metrics_pr813.prom"));
    EXPECT_EQ(s.profile, Profile::SGLang);
    // The prefill bootstrap queue under its older name, `sglang_` spelling.
    EXPECT_EQ(s.prefillBootstrapQueue, 0);
    EXPECT_EQ(sourceOf(s, Concept::PrefillBootstrapQueue),
              "sglang_num_prefill_prealloc_queue_reqs");
    EXPECT_FALSE(s.decodeTransferQueue.has_value());
}

TEST(metricsProfiles, TpReplicasAreTakenOnceAndDisagreementWarns)
{
    const MetricPage page = ExpositionParser::parse(
        "sglang:num_running_reqs{dp_rank=\"0\",tp_rank=\"0\",moe_ep_rank=\"0\"} 20\n"
        "sglang:num_running_reqs{dp_rank=\"0\",tp_rank=\"1\",moe_ep_rank=\"1\"} 20\n"
        "sglang:num_running_reqs{dp_rank=\"1\",tp_rank=\"2\",moe_ep_rank=\"2\"} 18\n"
        "sglang:num_running_reqs{dp_rank=\"1\",tp_rank=\"3\",moe_ep_rank=\"3\"} 18\n"
        "sglang:num_queue_reqs{tp_rank=\"0\"} 3\n"
        "sglang:num_queue_reqs{tp_rank=\"1\"} 4\n");
    const PageSummary s = summarizePage(page);
    EXPECT_EQ(s.running, 38); // one per dp_rank group, summed
    EXPECT_EQ(s.waiting, 3);  // the first copy; never 7
    ASSERT_EQ(s.warnings.size(), 1u);
    EXPECT_NE(s.warnings[0].find("sglang:num_queue_reqs"), std::string::npos) << s.warnings[0];
    EXPECT_NE(s.warnings[0].find("disagree"), std::string::npos) << s.warnings[0];
}

TEST(metricsProfiles, RatiosAverageWithMaxAndHistogramsSumPerBound)
{
    const MetricPage page = ExpositionParser::parse(
        "sglang:token_usage{dp_rank=\"0\"} 0.9\nsglang:token_usage{dp_rank=\"1\"} 0.1\n"
        "sglang:token_usage{dp_rank=\"2\"} 0.2\n"
        "x_bucket{dp_rank=\"0\",le=\"1\"} 1\nx_bucket{dp_rank=\"0\",le=\"+Inf\"} 2\n"
        "x_bucket{dp_rank=\"1\",le=\"1.0\"} 3\nx_bucket{dp_rank=\"1\",le=\"+Inf\"} 6\n"
        "x_sum{dp_rank=\"0\"} 4\nx_sum{dp_rank=\"1\"} 8\n"
        "x_count{dp_rank=\"0\"} 2\nx_count{dp_rank=\"1\"} 6\n");
    const PageSummary s = summarizePage(page);
    EXPECT_DOUBLE_EQ(*s.kvUsage, 0.4);
    EXPECT_EQ(s.kvUsageMax, 0.9);
    const HistogramAggregate x = Aggregation::histogram(page, "x");
    ASSERT_EQ(x.buckets.size(), 2u); // "1" and "1.0" are one bound
    EXPECT_EQ(x.buckets[0].second, 4);
    EXPECT_EQ(x.buckets[1].second, 8);
    EXPECT_EQ(x.mean(), 12.0 / 8);
    EXPECT_EQ(x.shareAtOrBelow(1), 0.5);
}

TEST(metricsProfiles, AHistogramsMeanNeedsNoBucketsUnlessItHasNoCount)
{
    const MetricPage page = ExpositionParser::parse(
        "x_bucket{tp_rank=\"0\",le=\"1\"} 1\nx_bucket{tp_rank=\"0\",le=\"+Inf\"} 2\n"
        "x_bucket{tp_rank=\"1\",le=\"1\"} 1\nx_bucket{tp_rank=\"1\",le=\"+Inf\"} 2\n"
        "x_sum{tp_rank=\"0\"} 4\nx_sum{tp_rank=\"1\"} 5\n"
        "x_count{tp_rank=\"0\"} 2\nx_count{tp_rank=\"1\"} 2\n"
        "y_bucket{le=\"1\"} 3\ny_bucket{le=\"+Inf\"} 4\ny_sum 2\n");
    const HistogramAggregate x = Aggregation::histogramMean(page, "x");
    EXPECT_TRUE(x.present);
    EXPECT_TRUE(x.buckets.empty());   // _count is there: the buckets are not read
    EXPECT_EQ(x.mean(), 4.0 / 2);     // tp copies taken once
    ASSERT_EQ(x.warnings.size(), 1u); // the copies' _sum disagree
    EXPECT_NE(x.warnings[0].find("x histogram _sum"), std::string::npos) << x.warnings[0];
    EXPECT_EQ(x.mean(), Aggregation::histogram(page, "x").mean());
    // No _count: the +Inf bucket counts the observations.
    const HistogramAggregate y = Aggregation::histogramMean(page, "y");
    EXPECT_EQ(y.count, 4);
    EXPECT_EQ(y.mean(), 0.5);
}

TEST(metricsProfiles, MixedPageYieldsEveryConceptAndProfileOverrideRestricts)
{
    const MetricPage page = ExpositionParser::parse(
        "sglang_num_running_reqs{worker_addr=\"http://a:1\"} 4\n"
        "sglang_num_decode_transfer_queue_reqs{worker_addr=\"http://a:1\"} 2\n"
        "sglang:num_bootstrap_failed_reqs_total 1\n"
        "sglang:num_transfer_failed_reqs_total 3\n"
        "vllm:num_requests_waiting{engine=\"0\"} 5\n"
        "smg_worker_health{worker=\"http://a:1\"} 1\n"
        "smg_worker_health{worker=\"http://b:1\"} 0\n");
    const PageSummary autoRead = summarizePage(page);
    EXPECT_EQ(autoRead.profile, Profile::SGLang);
    EXPECT_EQ(autoRead.running, 4);
    EXPECT_EQ(autoRead.waiting, 5); // from vLLM's name: the page holds it
    EXPECT_EQ(autoRead.decodeTransferQueue, 2);
    EXPECT_EQ(autoRead.bootstrapFailuresTotal, 1);
    EXPECT_EQ(autoRead.transferFailuresTotal, 3);
    EXPECT_EQ(autoRead.workersHealthy, 1);
    EXPECT_EQ(autoRead.workersTotal, 2);

    const PageSummary vllmOnly = summarizePage(page, Profile::VLLM);
    EXPECT_EQ(vllmOnly.profile, Profile::VLLM);
    EXPECT_FALSE(vllmOnly.running.has_value());
    EXPECT_EQ(vllmOnly.waiting, 5);
    EXPECT_FALSE(vllmOnly.workersHealthy.has_value());

    const PageSummary routerOnly = summarizePage(page, Profile::Router);
    EXPECT_FALSE(routerOnly.running.has_value());
    EXPECT_EQ(routerOnly.workersHealthy, 1);
    EXPECT_EQ(routerOnly.workersTotal, 2);

    EXPECT_EQ(summarizePage(ExpositionParser::parse("foo 1\n")).profile, Profile::Auto);
}

TEST(metricsProfiles, NamesAndAliases)
{
    EXPECT_EQ(EngineProfile::fromName("SGLang"), Profile::SGLang);
    EXPECT_EQ(EngineProfile::fromName("vllm"), Profile::VLLM);
    EXPECT_EQ(EngineProfile::fromName("router"), Profile::Router);
    EXPECT_EQ(EngineProfile::fromName("auto"), Profile::Auto);
    EXPECT_FALSE(EngineProfile::fromName("trtllm").has_value());
    for (const Concept c : EngineProfile::concepts()) {
        EXPECT_FALSE(EngineProfile::aliases(c).empty()) << EngineProfile::key(c);
        EXPECT_FALSE(EngineProfile::key(c).empty());
    }
    // The new vLLM KV name is preferred to the legacy one.
    const auto kv = EngineProfile::aliases(Concept::KvUsage);
    std::size_t fresh = kv.size(), legacy = kv.size();
    for (std::size_t i = 0; i < kv.size(); ++i) {
        if (kv[i].family == "vllm:kv_cache_usage_perc")
            fresh = i;
        if (kv[i].family == "vllm:gpu_cache_usage_perc")
            legacy = i;
    }
    EXPECT_LT(fresh, legacy);
    EXPECT_LT(legacy, kv.size());
}
