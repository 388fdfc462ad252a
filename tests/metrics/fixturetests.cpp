// Real /metrics pages (tests/data/metrics/0*.prom, origins in SOURCES.md).
// Every expected value below is read off those files.
//
// Family counts vs the python reference (prometheus_client 0.16, SOURCES.md):
// the sample counts are the same for all five pages. The family counts match
// only where every sample sits under its own TYPE line and no family is split
// (01: 12 = 12). Python starts a new family at every TYPE/HELP group and makes
// one single-sample family per sample it cannot place; we merge split groups
// and put untyped samples of one name (or one histogram-shaped stem) into one
// family: 02: 13 -> 4, 03: 15 -> 8, 04: 14 -> 11, 05: 6 -> 5.

#include "metricstesthelpers.h"
#include "pagesummary.h"

#include <cmath>
#include <gtest/gtest.h>
#include <set>

using namespace opsdeck::metrics;
using namespace opsdeck::metrics::test;

TEST(metricsFixtures, SglangDocsExampleValues)
{
    const MetricPage page = parseFile("01-sglang_docs_production_metrics_example.prom");
    EXPECT_TRUE(page.warnings.empty()) << warningsText(page);
    EXPECT_EQ(page.families.size(), 12u);
    EXPECT_EQ(page.samples.size(), 91u);

    EXPECT_EQ(valueOf(page, "sglang:num_running_reqs"), 162);
    EXPECT_EQ(valueOf(page, "sglang:num_queue_reqs"), 2826);
    EXPECT_EQ(valueOf(page, "sglang:token_usage"), 0.28);
    EXPECT_EQ(valueOf(page, "sglang:generation_tokens_total"), 7557572);
    EXPECT_EQ(valueOf(page, "sglang:prompt_tokens_total"), 8128902);
    EXPECT_EQ(valueOf(page, "sglang:cache_hit_rate"), 0.007507552643049313);
    EXPECT_EQ(valueOf(page, "sglang:time_to_first_token_seconds_bucket", {{"le", "+Inf"}}), 11008);
    EXPECT_EQ(valueOf(page, "sglang:time_to_first_token_seconds_bucket", {{"le", "1.0"}}), 27);
    EXPECT_EQ(valueOf(page, "sglang:time_to_first_token_seconds_count"), 11008);
    EXPECT_EQ(valueOf(page, "sglang:time_to_first_token_seconds_sum"), 2.3518979474117756e+06);
    EXPECT_EQ(valueOf(page, "sglang:time_per_output_token_seconds_bucket", {{"le", "0.1"}}),
              4950195);
    // Label values are kept as written, not re-formatted through a double.
    EXPECT_EQ(valueOf(page, "sglang:func_latency_seconds_bucket", {{"le", "0.07500000000000001"}}),
              14006);

    const Family *ttft = page.family("sglang:time_to_first_token_seconds");
    ASSERT_NE(ttft, nullptr);
    EXPECT_EQ(ttft->type, MetricType::Histogram);
    EXPECT_EQ(ttft->help, "Histogram of time to first token in seconds.");
    EXPECT_EQ(ttft->line, 13);
    EXPECT_EQ(ttft->samples.size(), 23u); // _sum, 21 buckets, _count
    EXPECT_EQ(page.samplesNamed("sglang:time_to_first_token_seconds_bucket").size(), 21u);
    // The family name is not a sample name of a histogram.
    EXPECT_TRUE(page.samplesNamed("sglang:time_to_first_token_seconds").empty());

    const Family *tokens = page.family("sglang:prompt_tokens_total");
    ASSERT_NE(tokens, nullptr);
    EXPECT_EQ(tokens->type, MetricType::Counter);
    EXPECT_EQ(page.family("sglang:prompt_tokens"), nullptr);

    const Sample *running = findSample(page, "sglang:num_running_reqs");
    ASSERT_NE(running, nullptr);
    EXPECT_EQ(running->line, 106);
    EXPECT_EQ(running->label("model_name"), "meta-llama/Llama-3.1-8B-Instruct");
    EXPECT_EQ(running->label("dp_rank"), "");
    EXPECT_FALSE(running->timestampMs.has_value());
}

TEST(metricsFixtures, SglangDataParallelRanks)
{
    const MetricPage page = parseFile("02-sglang_dp_attention_multirank_aibrix1614.prom");
    EXPECT_TRUE(page.warnings.empty()) << warningsText(page);
    EXPECT_EQ(page.samples.size(), 18u);
    EXPECT_EQ(page.families.size(), 4u);

    // The deployment has dp 8; the quoted output in the fixture shows 7 of the
    // ranks (rank 1 was elided in the issue).
    const auto gen = page.samplesNamed("sglang:gen_throughput");
    ASSERT_EQ(gen.size(), 7u);
    std::set<std::string> ranks;
    for (const Sample *s : gen)
        ranks.insert(std::string(s->label("dp_rank")));
    EXPECT_EQ(ranks, (std::set<std::string>{"0", "2", "3", "4", "5", "6", "7"}));
    EXPECT_EQ(valueOf(page, "sglang:gen_throughput", {{"dp_rank", "3"}}), 141.7546862896204);
    EXPECT_EQ(valueOf(page, "sglang:gen_throughput", {{"dp_rank", "7"}}), 35.43700884115304);

    // No HELP/TYPE for the first family: it keeps its full name, type unknown.
    const Family *genFamily = page.family("sglang:gen_throughput");
    ASSERT_NE(genFamily, nullptr);
    EXPECT_EQ(genFamily->type, MetricType::Unknown);
    EXPECT_EQ(genFamily->help, "");
    EXPECT_EQ(genFamily->samples.size(), 7u);
    EXPECT_EQ(genFamily->line, 1);

    // num_retracted_reqs follows num_queue_reqs' samples without a TYPE: its own family.
    const Family *queue = page.family("sglang:num_queue_reqs");
    ASSERT_NE(queue, nullptr);
    EXPECT_EQ(queue->samples.size(), 2u);
    const Family *retracted = page.family("sglang:num_retracted_reqs");
    ASSERT_NE(retracted, nullptr);
    EXPECT_EQ(retracted->samples.size(), 4u);
    EXPECT_EQ(valueOf(page, "sglang:num_paused_reqs", {{"pid", "912"}}), 0);
    EXPECT_EQ(findSample(page, "sglang:num_paused_reqs", {{"dp_rank", "2"}})->label("pid"), "912");
    EXPECT_EQ(page.family("sglang:num_paused_reqs")->samples.size(), 5u);
}

TEST(metricsFixtures, SglangTwoModelPagesConcatenated)
{
    const MetricPage page = parseFile("03-sglang_engine_type_label_pr7944_pr4444.prom");
    EXPECT_EQ(page.samples.size(), 13u);
    EXPECT_EQ(page.families.size(), 8u);

    // The second model's page reopens four families: merged, one warning each,
    // on the line where the second group starts.
    ASSERT_EQ(page.warnings.size(), 4u) << warningsText(page);
    EXPECT_EQ(countWarnings(page, 29, "family sglang:gen_throughput appears in 2 groups"), 1);
    EXPECT_EQ(countWarnings(page, 20, "family sglang:num_running_reqs appears in 2 groups"), 1);
    EXPECT_EQ(countWarnings(page, 23, "family sglang:num_used_tokens appears in 2 groups"), 1);
    EXPECT_EQ(countWarnings(page, 26, "family sglang:token_usage appears in 2 groups"), 1);

    const Family *running = page.family("sglang:num_running_reqs");
    ASSERT_NE(running, nullptr);
    EXPECT_EQ(running->samples.size(), 2u);
    EXPECT_EQ(findSample(page, "sglang:num_running_reqs",
                         {{"model_name", "/models/Meta-Llama-3-8B-Instruct"}})
                  ->line,
              22);

    // A TYPE line with no samples still declares the family.
    const Family *gen = page.family("sglang:gen_throughput");
    ASSERT_NE(gen, nullptr);
    EXPECT_EQ(gen->type, MetricType::Gauge);
    EXPECT_TRUE(gen->samples.empty());

    // TYPE without HELP.
    const Family *requests = page.family("sglang:num_requests_total");
    ASSERT_NE(requests, nullptr);
    EXPECT_EQ(requests->type, MetricType::Counter);
    EXPECT_EQ(requests->help, "");
    EXPECT_EQ(valueOf(page, "sglang:num_requests_total"), 217);
    EXPECT_EQ(valueOf(page, "sglang:num_aborted_requests_total"), 157);

    // Buckets without TYPE (after gen_throughput's TYPE line): histogram-shaped,
    // so grouped under the stripped name, type still unknown.
    const Family *e2e = page.family("sglang:e2e_request_latency_seconds");
    ASSERT_NE(e2e, nullptr);
    EXPECT_EQ(e2e->type, MetricType::Unknown);
    EXPECT_EQ(e2e->samples.size(), 4u);
    EXPECT_EQ(page.family("sglang:e2e_request_latency_seconds_bucket"), nullptr);
    EXPECT_EQ(valueOf(page, "sglang:e2e_request_latency_seconds_bucket", {{"le", "40.0"}}), 1);
}

TEST(metricsFixtures, VllmExamples)
{
    const MetricPage page = parseFile("04-vllm_metrics_examples.prom");
    EXPECT_TRUE(page.warnings.empty()) << warningsText(page);
    EXPECT_EQ(page.samples.size(), 24u);
    EXPECT_EQ(page.families.size(), 11u);

    EXPECT_EQ(valueOf(page, "vllm:num_requests_running"), 8);
    EXPECT_EQ(valueOf(page, "vllm:generation_tokens_total"), 27453);
    EXPECT_EQ(valueOf(page, "vllm:request_success_total", {{"finished_reason", "length"}}), 131);
    EXPECT_EQ(valueOf(page, "vllm:time_to_first_token_seconds_count"), 140);
    EXPECT_EQ(valueOf(page, "vllm:time_to_first_token_seconds_bucket", {{"le", "0.04"}}), 97);
    EXPECT_EQ(page.family("vllm:time_to_first_token_seconds")->samples.size(), 9u);

    const Sample *info = findSample(page, "vllm:cache_config_info");
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->label("gpu_memory_utilization"), "0.9");
    EXPECT_EQ(info->label("enable_prefix_caching"), "False");
    EXPECT_EQ(info->labels.size(), 6u);
    EXPECT_EQ(page.family("vllm:cache_config_info")->type, MetricType::Gauge);

    const Family *queueTime = page.family("vllm:request_queue_time_seconds");
    ASSERT_NE(queueTime, nullptr);
    EXPECT_EQ(queueTime->samples.size(), 4u);
    EXPECT_EQ(valueOf(page, "vllm:request_queue_time_seconds_bucket", {{"le", "+Inf"}}), 3);

    // Untyped middleware lines: a lone `_count` is not histogram-shaped, so it
    // keeps its full name.
    EXPECT_NE(page.family("http_request_size_bytes_count"), nullptr);
    EXPECT_EQ(page.family("http_request_size_bytes"), nullptr);
    EXPECT_EQ(valueOf(page, "http_requests_total", {{"status", "2xx"}}), 201);
    const Sample *highr = findSample(page, "http_request_duration_highr_seconds_count");
    ASSERT_NE(highr, nullptr);
    EXPECT_TRUE(highr->labels.empty());
    EXPECT_EQ(highr->line, 36);
}

TEST(metricsFixtures, GatewayReexportSpelling)
{
    const MetricPage page = parseFile("05-smg_gateway_reexport_of_sglang_metrics_pr813.prom");
    EXPECT_TRUE(page.warnings.empty()) << warningsText(page);
    EXPECT_EQ(page.samples.size(), 6u);
    EXPECT_EQ(page.families.size(), 5u);

    EXPECT_EQ(valueOf(page, "sglang_cuda_graph_passes_total"), 311);
    EXPECT_EQ(valueOf(page, "sglang_realtime_tokens_total", {{"mode", "prefill_compute"}}), 55);
    EXPECT_EQ(findSample(page, "sglang_cache_hit_rate")->label("worker_addr"),
              "grpc://127.0.0.1:8001");
    EXPECT_EQ(page.family("sglang_realtime_tokens_total")->help,
              "Total number of tokens processed (updated on each log interval). mode_ "
              "prefill_compute, prefill_cache, decode.");

    // Buckets without HELP/TYPE, `le` written last: grouped, order kept.
    const Family *stage = page.family("sglang_per_stage_req_latency_seconds");
    ASSERT_NE(stage, nullptr);
    EXPECT_EQ(stage->samples.size(), 2u);
    const Sample *bucket = findSample(page, "sglang_per_stage_req_latency_seconds_bucket",
                                      {{"le", "9.567209327899839"}});
    ASSERT_NE(bucket, nullptr);
    EXPECT_EQ(bucket->value, 8);
    EXPECT_EQ(bucket->labels.back().name, "le");
    EXPECT_EQ(bucket->labels.front().name, "engine_type");
}

TEST(metricsFixtures, SummaryOfEachFixture)
{
    const PageSummary docs =
        summarizePage(parseFile("01-sglang_docs_production_metrics_example.prom"));
    EXPECT_EQ(docs.running, 162);
    EXPECT_EQ(docs.waiting, 2826);
    EXPECT_EQ(docs.kvUsage, 0.28);
    EXPECT_EQ(docs.generationTokensTotal, 7557572);
    EXPECT_EQ(docs.promptTokensTotal, 8128902);

    // Only num_queue_reqs (two ranks at 0) is on this page.
    const PageSummary dp =
        summarizePage(parseFile("02-sglang_dp_attention_multirank_aibrix1614.prom"));
    EXPECT_FALSE(dp.running.has_value());
    EXPECT_EQ(dp.waiting, 0);
    EXPECT_FALSE(dp.kvUsage.has_value());
    EXPECT_FALSE(dp.generationTokensTotal.has_value());

    // Two models, both idle: sums and the mean of two zeros.
    const PageSummary twoModels =
        summarizePage(parseFile("03-sglang_engine_type_label_pr7944_pr4444.prom"));
    EXPECT_EQ(twoModels.running, 0);
    EXPECT_EQ(twoModels.kvUsage, 0);
    EXPECT_FALSE(twoModels.waiting.has_value());
    EXPECT_FALSE(twoModels.promptTokensTotal.has_value());

    const PageSummary vllm = summarizePage(parseFile("04-vllm_metrics_examples.prom"));
    EXPECT_EQ(vllm.running, 8);
    EXPECT_EQ(vllm.generationTokensTotal, 27453);
    EXPECT_FALSE(vllm.waiting.has_value());
    EXPECT_FALSE(vllm.kvUsage.has_value());
    EXPECT_FALSE(vllm.promptTokensTotal.has_value());

    // The gateway page carries none of the summary's metrics.
    const PageSummary gateway =
        summarizePage(parseFile("05-smg_gateway_reexport_of_sglang_metrics_pr813.prom"));
    EXPECT_FALSE(gateway.running.has_value());
    EXPECT_FALSE(gateway.waiting.has_value());
    EXPECT_FALSE(gateway.kvUsage.has_value());
    EXPECT_FALSE(gateway.generationTokensTotal.has_value());
    EXPECT_FALSE(gateway.promptTokensTotal.has_value());
}
