// summarizePage's rules on small pages (the fixtures are in fixturetests.cpp).

#include "metricstesthelpers.h"
#include "pagesummary.h"

#include <gtest/gtest.h>

using namespace opsdeck::metrics;

TEST(metricsSummary, SumsCountsAndAveragesRatiosAcrossEngines)
{
    const PageSummary summary =
        summarizePage(ExpositionParser::parse("vllm:num_requests_running{engine=\"0\"} 7\n"
                                              "vllm:num_requests_running{engine=\"1\"} 3\n"
                                              "vllm:num_requests_waiting{engine=\"0\"} 2\n"
                                              "vllm:num_requests_waiting{engine=\"1\"} 0\n"
                                              "vllm:kv_cache_usage_perc{engine=\"0\"} 0.8\n"
                                              "vllm:kv_cache_usage_perc{engine=\"1\"} 0.4\n"
                                              "vllm:generation_tokens_total{engine=\"0\"} 120000\n"
                                              "vllm:generation_tokens_total{engine=\"1\"} 80000\n"
                                              "vllm:prompt_tokens_total{engine=\"0\"} 5\n"));
    EXPECT_EQ(summary.running, 10);
    EXPECT_EQ(summary.waiting, 2);
    EXPECT_DOUBLE_EQ(*summary.kvUsage, 0.6); // never 1.2
    EXPECT_EQ(summary.generationTokensTotal, 200000);
    EXPECT_EQ(summary.promptTokensTotal, 5);
}

TEST(metricsSummary, VllmKvUsageRenameNeverAddsBothNames)
{
    const PageSummary transition =
        summarizePage(ExpositionParser::parse("vllm:gpu_cache_usage_perc{engine=\"0\"} 0.42\n"
                                              "vllm:kv_cache_usage_perc{engine=\"0\"} 0.40\n"));
    EXPECT_EQ(transition.kvUsage, 0.40); // the new name wins; not 0.41, not 0.82
    const PageSummary legacy =
        summarizePage(ExpositionParser::parse("vllm:gpu_cache_usage_perc{engine=\"0\"} 0.42\n"));
    EXPECT_EQ(legacy.kvUsage, 0.42);
}

TEST(metricsSummary, SglangSpellings)
{
    // Router re-export spelling alone.
    const PageSummary router = summarizePage(ExpositionParser::parse(
        "sglang_num_running_reqs{worker_addr=\"http://127.0.0.1:30001\"} 4\n"
        "sglang_num_running_reqs{worker_addr=\"http://127.0.0.1:30002\"} 2\n"
        "sglang_num_queue_reqs{worker_addr=\"http://127.0.0.1:30002\"} 5\n"
        "sglang_token_usage 0.5\n"));
    EXPECT_EQ(router.running, 6);
    EXPECT_EQ(router.waiting, 5);
    EXPECT_EQ(router.kvUsage, 0.5);

    // Both spellings of one metric on a page: one is read, never both.
    const PageSummary both = summarizePage(ExpositionParser::parse(
        "sglang:num_running_reqs 20\nsglang_num_running_reqs 20\nsglang:num_queue_reqs 1\n"));
    EXPECT_EQ(both.running, 20);
    EXPECT_EQ(both.waiting, 1);
}

TEST(metricsSummary, NanSeriesAreSkipped)
{
    const PageSummary summary = summarizePage(ExpositionParser::parse(
        "sglang:token_usage{dp_rank=\"0\"} NaN\nsglang:token_usage{dp_rank=\"1\"} 0.3\n"
        "sglang:num_running_reqs NaN\n"));
    EXPECT_EQ(summary.kvUsage, 0.3);
    EXPECT_FALSE(summary.running.has_value());
}
