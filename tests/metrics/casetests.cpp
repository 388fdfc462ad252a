// Field cases B01, B03, B04, B06 (tests/data/metrics/B0*.prom); the expected
// values are those of the matching .expected files.

#include "metricstesthelpers.h"
#include "pagesummary.h"

#include <gtest/gtest.h>

using namespace opsdeck::metrics;
using namespace opsdeck::metrics::test;

TEST(metricsCases, B01CrlfLineEndings)
{
    const std::string text = readMetricsData("B01_crlf_line_endings.prom");
    ASSERT_NE(text.find("\r\n"), std::string::npos); // the file really is CRLF
    const MetricPage page = ExpositionParser::parse(text);

    // parse_errors: 0; the optional CRLF warning comes once per page.
    ASSERT_EQ(page.warnings.size(), 1u) << warningsText(page);
    EXPECT_EQ(countWarnings(page, 1, "CRLF line endings (12 lines)"), 1);

    const Family *running = page.family("sglang:num_running_reqs");
    ASSERT_NE(running, nullptr);
    EXPECT_EQ(running->type, MetricType::Gauge);
    EXPECT_EQ(running->help, "The number of running requests.");
    EXPECT_EQ(
        valueOf(page, "sglang:num_running_reqs",
                {{"engine_type", "unified"}, {"model_name", "Qwen/Qwen3-8B"}, {"tp_rank", "0"}}),
        3);

    const Family *e2e = page.family("sglang:e2e_request_latency_seconds");
    ASSERT_NE(e2e, nullptr);
    EXPECT_EQ(e2e->type, MetricType::Summary); // not "summary\r" / unknown
    EXPECT_EQ(e2e->samples.size(), 4u);
    EXPECT_EQ(valueOf(page, "sglang:e2e_request_latency_seconds", {{"quantile", "0.5"}}), 0.25);
    EXPECT_EQ(valueOf(page, "sglang:e2e_request_latency_seconds", {{"quantile", "0.99"}}), 1.75);
    const double sum = valueOf(page, "sglang:e2e_request_latency_seconds_sum");
    const double count = valueOf(page, "sglang:e2e_request_latency_seconds_count");
    EXPECT_EQ(sum, 42.5);
    EXPECT_EQ(count, 120);
    EXPECT_NEAR(sum / count, 0.354167, 1e-6);

    const Sample *temp = findSample(page, "node_textfile_gpu_temp_celsius", {{"gpu", "0"}});
    ASSERT_NE(temp, nullptr);
    EXPECT_EQ(temp->value, 61);
    ASSERT_TRUE(temp->timestampMs.has_value()); // "1700000000000\r" must not fail the int parse
    EXPECT_EQ(*temp->timestampMs, 1700000000000);
    EXPECT_EQ(temp->line, 12);

    for (const Family &f : page.families)
        EXPECT_EQ(f.help.find('\r'), std::string::npos) << f.name;
    for (const Sample &s : page.samples) {
        for (const Label &l : s.labels)
            EXPECT_EQ(l.value.find('\r'), std::string::npos) << s.name;
    }
}

TEST(metricsCases, B03TotalSuffixCollision)
{
    const MetricPage page = parseFile("B03_total_suffix_collision.prom");
    EXPECT_TRUE(page.warnings.empty()) << warningsText(page); // parse_errors: 0

    // 4 distinct series keyed by their full sample names, each its own family.
    ASSERT_EQ(page.samples.size(), 4u);
    ASSERT_EQ(page.families.size(), 4u);
    const Family *gauge = page.family("go_memstats_alloc_bytes");
    const Family *counter = page.family("go_memstats_alloc_bytes_total");
    ASSERT_NE(gauge, nullptr);
    ASSERT_NE(counter, nullptr);
    EXPECT_EQ(gauge->type, MetricType::Gauge);
    EXPECT_EQ(counter->type, MetricType::Counter);
    ASSERT_EQ(gauge->samples.size(), 1u);
    ASSERT_EQ(counter->samples.size(), 1u);
    EXPECT_EQ(page.samples[gauge->samples[0]].value, 6058576);
    EXPECT_EQ(page.samples[counter->samples[0]].value, 44330096);
    EXPECT_EQ(gauge->help, "Number of bytes allocated and still in use.");
    EXPECT_EQ(counter->help, "Total number of bytes allocated, even if freed.");
    EXPECT_EQ(valueOf(page, "go_memstats_alloc_bytes"), 6058576);
    EXPECT_EQ(valueOf(page, "go_memstats_alloc_bytes_total"), 44330096);

    EXPECT_EQ(valueOf(page, "vllm:num_preemptions_total",
                      {{"engine", "0"}, {"model_name", "Qwen/Qwen3-8B"}}),
              5);
    EXPECT_EQ(page.family("vllm:num_preemptions_total")->type, MetricType::Counter);

    // _created is creation-time metadata of the counter, not a chart series.
    const Family *created = page.family("vllm:num_preemptions_created");
    ASSERT_NE(created, nullptr);
    EXPECT_EQ(created->createdOf, "vllm:num_preemptions_total");
    EXPECT_EQ(valueOf(page, "vllm:num_preemptions_created"), 1700000000.5);
    EXPECT_EQ(counter->createdOf, "");
    EXPECT_EQ(gauge->createdOf, "");
}

TEST(metricsCases, B04FamilySplitAndDuplicateSeries)
{
    const MetricPage page = parseFile("B04_family_split_duplicate_help.prom");

    ASSERT_EQ(page.warnings.size(), 2u) << warningsText(page);
    EXPECT_EQ(
        countWarnings(page, 7, "family gossipsub_accepted_messages_per_topic appears in 2 groups"),
        1);
    EXPECT_EQ(countWarnings(page, 14, "duplicate sample dropped"), 1);
    EXPECT_EQ(countWarnings(page, 14, "first value (line 13) kept"), 1);

    const Family *gossip = page.family("gossipsub_accepted_messages_per_topic");
    ASSERT_NE(gossip, nullptr);
    EXPECT_EQ(gossip->type, MetricType::Counter);
    EXPECT_EQ(gossip->samples.size(), 3u);
    EXPECT_EQ(familyTotal(page, *gossip), 1545);
    EXPECT_EQ(valueOf(page, "gossipsub_accepted_messages_per_topic", {{"hash", "topic-a"}}), 1200);
    EXPECT_EQ(valueOf(page, "gossipsub_accepted_messages_per_topic", {{"hash", "topic-b"}}), 300);
    EXPECT_EQ(valueOf(page, "gossipsub_accepted_messages_per_topic", {{"hash", "topic-c"}}), 45);
    EXPECT_EQ(valueOf(page, "libp2p_peers"), 57);

    // Identical label set twice: the FIRST value, never 5 (last wins) or 9 (summed).
    const auto running = page.samplesNamed("sglang:num_running_reqs");
    ASSERT_EQ(running.size(), 1u);
    EXPECT_EQ(running[0]->value, 4);
    EXPECT_EQ(running[0]->line, 13);
    EXPECT_EQ(summarizePage(page).running, 4);
    EXPECT_EQ(page.families.size(), 3u);
    EXPECT_EQ(page.samples.size(), 5u);
}

TEST(metricsCases, B06ByteOrderMarkAndInvalidUtf8)
{
    const std::string text = readMetricsData("B06_bom_and_invalid_utf8.prom");
    ASSERT_EQ(text.substr(0, 3), "\xEF\xBB\xBF");
    const MetricPage page = ExpositionParser::parse(text);

    // BOM skipped: line 1 is read as HELP.
    const Family *nginx = page.family("nginx_vts_server_requests_total");
    ASSERT_NE(nginx, nullptr);
    EXPECT_EQ(nginx->help, "The requests counter");
    EXPECT_EQ(nginx->type, MetricType::Counter);
    EXPECT_EQ(nginx->line, 1);

    // Only the bad series is dropped, and flagged with its line.
    ASSERT_EQ(page.warnings.size(), 1u) << warningsText(page);
    EXPECT_EQ(countWarnings(page, 3, "invalid UTF-8 in label value of host"), 1);
    ASSERT_EQ(nginx->samples.size(), 1u);
    EXPECT_EQ(
        valueOf(page, "nginx_vts_server_requests_total", {{"host", "api.host-a"}, {"code", "2xx"}}),
        1500);
    EXPECT_EQ(findSample(page, "nginx_vts_server_requests_total", {{"code", "5xx"}}), nullptr);

    // Total valid series: 3; non-ASCII model names kept byte-exact.
    EXPECT_EQ(page.samples.size(), 3u);
    const std::string chinese = "\xE9\x80\x9A\xE4\xB9\x89\xE5\x8D\x83\xE9\x97\xAE-Qwen3-8B";
    const std::string german = "\xE6\xA8\xA1\xE5\x9E\x8B/\xC3\xBCmlaut-\xC3\xA9";
    ASSERT_NE(text.find(chinese), std::string::npos);
    ASSERT_NE(text.find(german), std::string::npos);
    EXPECT_EQ(valueOf(page, "sglang:num_running_reqs", {{"model_name", chinese}}), 2);
    EXPECT_EQ(valueOf(page, "sglang:num_running_reqs", {{"model_name", german}}), 1);
    EXPECT_EQ(summarizePage(page).running, 3);
}
