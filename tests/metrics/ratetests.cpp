// CounterRate: per-second rates between two scrapes, resets never negative
// and never a spike (rules in models/metrics/counterrate.h).

#include "counterrate.h"
#include "expositionparser.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace opsdeck::metrics;

namespace {

const SeriesRate *findSeries(const std::vector<SeriesRate> &rates, const std::string &text)
{
    for (const SeriesRate &r : rates)
        if (r.series == text)
            return &r;
    return nullptr;
}

} // namespace

TEST(metricsRate, NormalRateIsIncreaseOverInterval)
{
    const MetricPage p1 =
        ExpositionParser::parse("# TYPE vllm:generation_tokens_total counter\n"
                                "vllm:generation_tokens_total{engine=\"0\"} 1000\n"
                                "vllm:generation_tokens_total{engine=\"1\"} 500\n"
                                "# TYPE vllm:prompt_tokens_total counter\n"
                                "vllm:prompt_tokens_total{engine=\"0\"} 200\n");
    const MetricPage p2 =
        ExpositionParser::parse("# TYPE vllm:generation_tokens_total counter\n"
                                "vllm:generation_tokens_total{engine=\"0\"} 1600\n"
                                "vllm:generation_tokens_total{engine=\"1\"} 900\n"
                                "# TYPE vllm:prompt_tokens_total counter\n"
                                "vllm:prompt_tokens_total{engine=\"0\"} 700\n");
    const Scrape before{p1, 1000};
    const Scrape after{p2, 1010};
    // Summed per engine: ((1600 - 1000) + (900 - 500)) / 10 s = 100 tokens/s.
    const Rate generation = CounterRate::perConcept(Concept::GenerationTokens, before, after);
    ASSERT_TRUE(generation.perSecond);
    EXPECT_DOUBLE_EQ(*generation.perSecond, 100);
    EXPECT_FALSE(generation.reset);
    // (700 - 200) / 10 = 50 tokens/s.
    EXPECT_DOUBLE_EQ(*CounterRate::perConcept(Concept::PromptTokens, before, after).perSecond, 50);
    EXPECT_EQ(CounterRate::key(Concept::GenerationTokens), "generation_tokens");
    EXPECT_EQ(CounterRate::key(Concept::PromptTokens), "prompt_tokens");

    const auto series = CounterRate::perSeries(before, after);
    ASSERT_EQ(series.size(), 3u);
    const SeriesRate *engine0 = findSeries(series, "vllm:generation_tokens_total{engine=\"0\"}");
    ASSERT_NE(engine0, nullptr);
    EXPECT_DOUBLE_EQ(*engine0->rate.perSecond, 60); // (1600 - 1000) / 10
    EXPECT_FALSE(CounterRate::perConcept(Concept::Ttft, before, after).perSecond);
}

TEST(metricsRate, ThroughputComesFromCountersNotTheGauge)
{
    const MetricPage p1 = ExpositionParser::parse("sglang:gen_throughput 9999\n"
                                                  "sglang:generation_tokens_total 4000\n");
    const MetricPage p2 = ExpositionParser::parse("sglang:gen_throughput 1\n"
                                                  "sglang:generation_tokens_total 4500\n");
    // (4500 - 4000) / (1002.5 - 1000) = 200 tokens/s; the gauge says 1 or 9999.
    const Rate rate =
        CounterRate::perConcept(Concept::GenerationTokens, Scrape{p1, 1000}, Scrape{p2, 1002.5});
    EXPECT_DOUBLE_EQ(*rate.perSecond, 200);
    // The untyped gauge is no counter series; the untyped `_total` is.
    const auto series = CounterRate::perSeries(Scrape{p1, 1000}, Scrape{p2, 1002.5});
    ASSERT_EQ(series.size(), 1u);
    EXPECT_EQ(series[0].series, "sglang:generation_tokens_total");
}

TEST(metricsRate, CounterThatFellIsAResetNeverNegative)
{
    const MetricPage p1 = ExpositionParser::parse("# TYPE vllm:generation_tokens_total counter\n"
                                                  "vllm:generation_tokens_total 1000\n");
    const MetricPage p2 = ExpositionParser::parse("# TYPE vllm:generation_tokens_total counter\n"
                                                  "vllm:generation_tokens_total 300\n");
    // No creation time: 300 counted since the restart, over the whole 10 s
    // interval = 30 tokens/s (never (300 - 1000) / 10 = -70).
    const Rate rate =
        CounterRate::perConcept(Concept::GenerationTokens, Scrape{p1, 1000}, Scrape{p2, 1010});
    EXPECT_TRUE(rate.reset);
    EXPECT_FALSE(rate.fromCreated);
    EXPECT_DOUBLE_EQ(*rate.perSecond, 30);
}

TEST(metricsRate, ResetUsesTheCreationTimeWhenThePageGivesOne)
{
    const MetricPage p1 = ExpositionParser::parse("# TYPE vllm:generation_tokens_total counter\n"
                                                  "vllm:generation_tokens_total 1000\n");
    const MetricPage p2 = ExpositionParser::parse("# TYPE vllm:generation_tokens_total counter\n"
                                                  "vllm:generation_tokens_total 300\n"
                                                  "# TYPE vllm:generation_tokens_created gauge\n"
                                                  "vllm:generation_tokens_created 1006\n");
    // Created at 1006, scraped at 1010: 300 / (1010 - 1006) = 75 tokens/s.
    const Rate rate =
        CounterRate::perConcept(Concept::GenerationTokens, Scrape{p1, 1000}, Scrape{p2, 1010});
    EXPECT_TRUE(rate.reset);
    EXPECT_TRUE(rate.fromCreated);
    EXPECT_DOUBLE_EQ(*rate.perSecond, 75);
    // The `_created` sample is metadata, never a rate of its own.
    const auto series = CounterRate::perSeries(Scrape{p1, 1000}, Scrape{p2, 1010});
    ASSERT_EQ(series.size(), 1u);
    EXPECT_DOUBLE_EQ(*series[0].rate.perSecond, 75);
}

TEST(metricsRate, ChangedCreatedValueIsAResetEvenWhenTheValueRose)
{
    const char *before = "# TYPE vllm:prompt_tokens_total counter\n"
                         "vllm:prompt_tokens_total{engine=\"0\"} 1000\n"
                         "# TYPE vllm:prompt_tokens_created gauge\n"
                         "vllm:prompt_tokens_created{engine=\"0\"} 900\n";
    const char *after = "# TYPE vllm:prompt_tokens_total counter\n"
                        "vllm:prompt_tokens_total{engine=\"0\"} 1200\n"
                        "# TYPE vllm:prompt_tokens_created gauge\n"
                        "vllm:prompt_tokens_created{engine=\"0\"} 1005\n";
    const MetricPage p1 = ExpositionParser::parse(before);
    const MetricPage p2 = ExpositionParser::parse(after);
    // Restarted at 1005 and climbed past 1000 by 1010: 1200 / (1010 - 1005) =
    // 240 tokens/s, not (1200 - 1000) / 10 = 20.
    const Rate rate =
        CounterRate::perConcept(Concept::PromptTokens, Scrape{p1, 1000}, Scrape{p2, 1010});
    EXPECT_TRUE(rate.reset);
    EXPECT_DOUBLE_EQ(*rate.perSecond, 240);
    const auto series = CounterRate::perSeries(Scrape{p1, 1000}, Scrape{p2, 1010});
    ASSERT_EQ(series.size(), 1u);
    EXPECT_EQ(series[0].series, "vllm:prompt_tokens_total{engine=\"0\"}");
    EXPECT_TRUE(series[0].rate.reset);
    EXPECT_DOUBLE_EQ(*series[0].rate.perSecond, 240);

    // Same creation time on both pages: a normal rate, (1200 - 1000) / 10 = 20.
    const MetricPage same =
        ExpositionParser::parse("# TYPE vllm:prompt_tokens_total counter\n"
                                "vllm:prompt_tokens_total{engine=\"0\"} 1200\n"
                                "# TYPE vllm:prompt_tokens_created gauge\n"
                                "vllm:prompt_tokens_created{engine=\"0\"} 900\n");
    const Rate steady =
        CounterRate::perConcept(Concept::PromptTokens, Scrape{p1, 1000}, Scrape{same, 1010});
    EXPECT_FALSE(steady.reset);
    EXPECT_DOUBLE_EQ(*steady.perSecond, 20);
}

TEST(metricsRate, OpenMetricsCreatedInsideTheCounterFamily)
{
    const MetricPage p1 = ExpositionParser::parse("# TYPE vllm:generation_tokens counter\n"
                                                  "vllm:generation_tokens_total 50\n"
                                                  "vllm:generation_tokens_created 100.0\n"
                                                  "# EOF\n");
    const MetricPage p2 = ExpositionParser::parse("# TYPE vllm:generation_tokens counter\n"
                                                  "vllm:generation_tokens_total 80\n"
                                                  "vllm:generation_tokens_created 1008.0\n"
                                                  "# EOF\n");
    ASSERT_EQ(p2.format, PageFormat::OpenMetrics);
    // Created changed 100 -> 1008: 80 / (1010 - 1008) = 40 tokens/s.
    const auto series = CounterRate::perSeries(Scrape{p1, 1000}, Scrape{p2, 1010});
    ASSERT_EQ(series.size(), 1u);
    EXPECT_EQ(series[0].series, "vllm:generation_tokens_total");
    EXPECT_TRUE(series[0].rate.reset);
    EXPECT_DOUBLE_EQ(*series[0].rate.perSecond, 40);
}

TEST(metricsRate, ChangedProcessStartTimeIsAReset)
{
    const MetricPage p1 = ExpositionParser::parse("process_start_time_seconds 500\n"
                                                  "sglang:prompt_tokens_total 1000\n");
    const MetricPage p2 = ExpositionParser::parse("process_start_time_seconds 1004\n"
                                                  "sglang:prompt_tokens_total 1200\n");
    // Restart seen only through the start time; no `_created`: 1200 / 10 = 120.
    const Rate rate =
        CounterRate::perConcept(Concept::PromptTokens, Scrape{p1, 1000}, Scrape{p2, 1010});
    EXPECT_TRUE(rate.reset);
    EXPECT_DOUBLE_EQ(*rate.perSecond, 120);
    EXPECT_TRUE(CounterRate::processRestarted(p1, p2));
    EXPECT_FALSE(CounterRate::processRestarted(p1, p1));
}

TEST(metricsRate, BetweenHandlesBadTimesNaNAndCreationAfterTheScrape)
{
    EXPECT_FALSE(CounterRate::between(1, 10, 2, 10, false).perSecond); // t2 == t1
    EXPECT_FALSE(CounterRate::between(std::nan(""), 0, 2, 10, false).perSecond);
    // A creation time at or after the scrape (clock skew) is not a base: 5 / 10.
    const Rate skewed = CounterRate::between(8, 0, 5, 10, false, 10.0);
    EXPECT_TRUE(skewed.reset);
    EXPECT_FALSE(skewed.fromCreated);
    EXPECT_DOUBLE_EQ(*skewed.perSecond, 0.5);
}

TEST(metricsRate, SeriesOnOnePageOnlyHasNoRateAndLabelsAreEscaped)
{
    const MetricPage p1 = ExpositionParser::parse(
        "# TYPE x_total counter\nx_total{path=\"a\\\"b\"} 1\nx_total{path=\"old\"} 5\n");
    const MetricPage p2 = ExpositionParser::parse(
        "# TYPE x_total counter\nx_total{path=\"a\\\"b\"} 3\nx_total{path=\"new\"} 7\n");
    const auto series = CounterRate::perSeries(Scrape{p1, 0}, Scrape{p2, 4});
    ASSERT_EQ(series.size(), 1u);
    EXPECT_EQ(series[0].series, "x_total{path=\"a\\\"b\"}");
    EXPECT_DOUBLE_EQ(*series[0].rate.perSecond, 0.5); // (3 - 1) / 4
}
