// The PromQL each concept becomes. The strings are checked whole because a
// wrong aggregation (summing tp replicas, adding old and new names) would
// still run and answer a wrong number; a real Prometheus evaluates them in
// prometheus_integration_test.cpp.
#include "promqlbuilder.h"

#include <gtest/gtest.h>

using opsdeck::metrics::Concept;
using opsdeck::metrics::Profile;
using opsdeck::prometheus::PromqlBuilder;

namespace {
const QString instance = QStringLiteral("127.0.0.1:30000");
}

TEST(PromqlBuilder, InstanceIsHostAndPortOfTheServiceUrl)
{
    EXPECT_EQ(PromqlBuilder::instanceOf(QUrl(QStringLiteral("http://127.0.0.1:30000/v1"))),
              QStringLiteral("127.0.0.1:30000"));
    EXPECT_EQ(PromqlBuilder::instanceOf(QUrl(QStringLiteral("https://decode.example"))),
              QStringLiteral("decode.example:443"));
    EXPECT_EQ(PromqlBuilder::selector(QStringLiteral("up"), QStringLiteral("a\"b\\c")),
              QStringLiteral("up{instance=\"a\\\"b\\\\c\"}"));
}

TEST(PromqlBuilder, RunningIsSummedOverRanksWithTpReplicasTakenOnce)
{
    EXPECT_EQ(
        PromqlBuilder::value(Concept::Running, Profile::SGLang, instance),
        QStringLiteral(
            "sum(max without (tp_rank) (sglang:num_running_reqs{instance=\"127.0.0.1:30000\"}))"
            " or sum(max without (tp_rank) "
            "(sglang_num_running_reqs{instance=\"127.0.0.1:30000\"}))"));
    EXPECT_EQ(PromqlBuilder::value(Concept::Running, Profile::VLLM, instance),
              QStringLiteral("sum(max without (tp_rank) "
                             "(vllm:num_requests_running{instance=\"127.0.0.1:30000\"}))"));
}

TEST(PromqlBuilder, KvUsageIsAveragedAndNewNameIsPreferredNeverAdded)
{
    const QString vllm = PromqlBuilder::value(Concept::KvUsage, Profile::VLLM, instance);
    EXPECT_EQ(vllm, QStringLiteral("avg(max without (tp_rank) "
                                   "(vllm:kv_cache_usage_perc{instance=\"127.0.0.1:30000\"}))"
                                   " or avg(max without (tp_rank) "
                                   "(vllm:gpu_cache_usage_perc{instance=\"127.0.0.1:30000\"}))"));
    EXPECT_FALSE(vllm.contains(QLatin1Char('+')));
    EXPECT_EQ(PromqlBuilder::ratioMax(Concept::KvUsage, Profile::SGLang, instance),
              QStringLiteral("max(sglang:token_usage{instance=\"127.0.0.1:30000\"}) or "
                             "max(sglang_token_usage{instance=\"127.0.0.1:30000\"})"));
}

TEST(PromqlBuilder, ThroughputIsSumOfCounterRates)
{
    EXPECT_EQ(PromqlBuilder::perSecond(Concept::GenerationTokens, Profile::SGLang, instance),
              QStringLiteral(
                  "sum(max without (tp_rank) "
                  "(rate(sglang:generation_tokens_total{instance=\"127.0.0.1:30000\"}[60s])))"
                  " or sum(max without (tp_rank) "
                  "(rate(sglang_generation_tokens_total{instance=\"127.0.0.1:30000\"}[60s])))"));
    // Auto asks every engine's name, SGLang first.
    const QString any =
        PromqlBuilder::perSecond(Concept::PromptTokens, Profile::Auto, instance, 15);
    EXPECT_EQ(any.count(QStringLiteral(" or ")), 2);
    EXPECT_LT(any.indexOf(QStringLiteral("sglang:prompt_tokens_total")),
              any.indexOf(QStringLiteral("vllm:prompt_tokens_total")));
    EXPECT_TRUE(any.contains(QStringLiteral("[15s]")));
}

TEST(PromqlBuilder, QuantilesUseHistogramQuantileOverSummedBuckets)
{
    EXPECT_EQ(PromqlBuilder::quantile(Concept::Ttft, Profile::SGLang, instance, 0.99),
              QStringLiteral("histogram_quantile(0.99, sum by (le) (max without (tp_rank) "
                             "(rate(sglang:time_to_first_token_seconds_bucket{instance=\"127.0.0.1:"
                             "30000\"}[60s])))) or histogram_quantile(0.99, sum by (le) (max "
                             "without (tp_rank) (rate(sglang_time_to_first_token_seconds_bucket{"
                             "instance=\"127.0.0.1:30000\"}[60s]))))"));
    // ITL: the new name before the legacy one, in both spellings.
    const QString itl = PromqlBuilder::quantile(Concept::Itl, Profile::SGLang, instance, 0.5);
    EXPECT_LT(itl.indexOf(QStringLiteral("sglang:inter_token_latency_seconds_bucket")),
              itl.indexOf(QStringLiteral("sglang:time_per_output_token_seconds_bucket")));
    EXPECT_TRUE(itl.startsWith(QStringLiteral("histogram_quantile(0.5, ")));
}

TEST(PromqlBuilder, HistogramValueIsWindowMeanAndUnknownProfileGivesNothing)
{
    EXPECT_EQ(PromqlBuilder::value(Concept::E2e, Profile::VLLM, instance, 30),
              QStringLiteral("(sum(rate(vllm:e2e_request_latency_seconds_sum{instance=\"127.0.0.1:"
                             "30000\"}[30s])) / sum(rate(vllm:e2e_request_latency_seconds_count{"
                             "instance=\"127.0.0.1:30000\"}[30s])))"));
    // The router profile has no running gauge: nothing to ask.
    EXPECT_TRUE(PromqlBuilder::value(Concept::Running, Profile::Router, instance).isEmpty());
    EXPECT_EQ(PromqlBuilder::value(Concept::WorkerHealth, Profile::Router, instance),
              QStringLiteral("sum(sgl_router_worker_health{instance=\"127.0.0.1:30000\"}) or "
                             "sum(smg_worker_health{instance=\"127.0.0.1:30000\"})"));
}
