// Garbage in: warnings with line numbers, no crash, and the rest of the page kept.

#include "metricstesthelpers.h"
#include "pagesummary.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>

using namespace opsdeck::metrics;
using namespace opsdeck::metrics::test;

namespace {

int lineCount(const std::string &text)
{
    return int(std::count(text.begin(), text.end(), '\n')) + (text.ends_with('\n') ? 0 : 1);
}

bool isAsciiSafe(const std::string &s)
{
    return std::all_of(s.begin(), s.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u >= 0x20 && u < 0x7F;
    });
}

} // namespace

TEST(metricsRobustness, RandomBytes)
{
    std::mt19937 random(20240611); // fixed seed: a failure reproduces
    std::uniform_int_distribution<int> byte(0, 255);
    std::string text(64 * 1024, '\0');
    for (char &c : text)
        c = static_cast<char>(byte(random));
    const int lines = lineCount(text);

    const MetricPage page = ExpositionParser::parse(text);
    EXPECT_FALSE(page.warnings.empty());
    for (const ParseWarning &w : page.warnings) {
        EXPECT_GE(w.line, 1);
        EXPECT_LE(w.line, lines);
        EXPECT_TRUE(isAsciiSafe(w.reason)) << w.reason;
    }
    EXPECT_TRUE(std::is_sorted(page.warnings.begin(), page.warnings.end(),
                               [](const auto &a, const auto &b) { return a.line < b.line; }));
}

TEST(metricsRobustness, GarbageLinesDoNotLoseThePage)
{
    std::string text = "# TYPE sglang:num_running_reqs gauge\n"
                       "sglang:num_running_reqs{dp_rank=\"0\"} 3\n";
    text += std::string("\x01\xFF\x7F garbage {{{ \"\" 1 2 3\n");
    text += "sglang:num_running_reqs{dp_rank=\"1\"} 4\n"
            "}\n"
            "sglang:num_queue_reqs 2\n";
    const MetricPage page = ExpositionParser::parse(text);
    EXPECT_EQ(countWarnings(page, 3, "expected a metric name"), 1) << warningsText(page);
    EXPECT_EQ(countWarnings(page, 5, "expected a metric name"), 1) << warningsText(page);
    EXPECT_EQ(page.warnings.size(), 2u);
    EXPECT_EQ(summarizePage(page).running, 7);
    EXPECT_EQ(summarizePage(page).waiting, 2);
}

TEST(metricsRobustness, TruncatedPage)
{
    const std::string full = readMetricsData("01-sglang_docs_production_metrics_example.prom");
    // Cut inside the label value of the num_running_reqs line (line 106).
    const std::size_t cut = full.find("sglang:num_running_reqs{model_name=\"meta");
    ASSERT_NE(cut, std::string::npos);
    const std::string truncated = full.substr(0, cut + 40);
    const MetricPage page = ExpositionParser::parse(truncated);

    EXPECT_EQ(countWarnings(page, 106, "unterminated label value"), 1) << warningsText(page);
    EXPECT_EQ(countWarnings(page, 106, "no line ending"), 1) << warningsText(page);
    EXPECT_EQ(page.warnings.size(), 2u);
    EXPECT_EQ(page.samples.size(), 91u - 4u); // the cut line and the 3 after it are gone
    EXPECT_TRUE(page.samplesNamed("sglang:num_running_reqs").empty());
    EXPECT_EQ(valueOf(page, "sglang:generation_tokens_total"), 7557572);

    // Cut inside the last value: the number is read but flagged as maybe truncated.
    const std::string midValue = full.substr(0, full.size() - 3); // "2826.0\n" -> "2826"
    const MetricPage page2 = ExpositionParser::parse(midValue);
    EXPECT_EQ(valueOf(page2, "sglang:num_queue_reqs"), 2826);
    ASSERT_EQ(page2.warnings.size(), 1u) << warningsText(page2);
    EXPECT_EQ(countWarnings(page2, 115, "the page may be truncated"), 1);
}

TEST(metricsRobustness, EmptyPages)
{
    for (const std::string &text : {std::string(), std::string("\n\n"), std::string("\xEF\xBB\xBF"),
                                    std::string("   \t\n# just a comment\n")}) {
        const MetricPage page = ExpositionParser::parse(text);
        EXPECT_TRUE(page.families.empty());
        EXPECT_TRUE(page.samples.empty());
        EXPECT_TRUE(page.warnings.empty()) << warningsText(page);
        const PageSummary summary = summarizePage(page);
        EXPECT_FALSE(summary.running.has_value());
        EXPECT_FALSE(summary.kvUsage.has_value());
    }
}

TEST(metricsRobustness, PageOverTheSizeLimit)
{
    // 17 MiB of valid lines: refused whole, before any parsing.
    const std::string line = "sglang:num_running_reqs{dp_rank=\"0\"} 1\n";
    std::string text;
    text.reserve((17u << 20) + line.size());
    while (text.size() < (17u << 20))
        text += line;
    text.resize(17u << 20);
    const MetricPage page = ExpositionParser::parse(text);
    EXPECT_TRUE(page.samples.empty());
    EXPECT_TRUE(page.families.empty());
    ASSERT_EQ(page.warnings.size(), 1u);
    EXPECT_EQ(page.warnings[0].line, 0);
    EXPECT_EQ(page.warnings[0].reason,
              "page is 17825792 bytes, over the limit of 16777216 bytes; not parsed");

    // The limit is inclusive and configurable.
    const std::string small = "a 1\nb 2\n";
    EXPECT_EQ(ExpositionParser::parse(small, {.maxPageBytes = small.size()}).samples.size(), 2u);
    EXPECT_EQ(ExpositionParser::parse(small, {.maxPageBytes = small.size() - 1}).warnings.size(),
              1u);
}

TEST(metricsRobustness, UnterminatedLabelValue)
{
    const MetricPage page = ExpositionParser::parse("# TYPE x gauge\n"
                                                    "x{a=\"open 1\n"
                                                    "x{a=\"closed\"} 2\n");
    ASSERT_EQ(page.warnings.size(), 1u) << warningsText(page);
    EXPECT_EQ(countWarnings(page, 2, "unterminated label value (label a of x)"), 1);
    ASSERT_EQ(page.samples.size(), 1u);
    EXPECT_EQ(page.samples[0].label("a"), "closed");
    EXPECT_EQ(page.samples[0].line, 3);
}

TEST(metricsRobustness, WarningsAreCapped)
{
    std::string text;
    for (int i = 0; i < 50; ++i)
        text += "bad line {\n";
    text += "good 1\n";
    const MetricPage page = ExpositionParser::parse(text, {.maxWarnings = 10});
    ASSERT_EQ(page.warnings.size(), 11u);
    EXPECT_EQ(page.warnings[9].line, 10);
    EXPECT_EQ(countWarnings(page, 11, "40 further warnings suppressed"), 1);
    EXPECT_EQ(valueOf(page, "good"), 1);
}
