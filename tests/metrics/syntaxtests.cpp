// The text format 0.0.4 grammar and the grouping rules, one small page each.

#include "metricstesthelpers.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace opsdeck::metrics;
using namespace opsdeck::metrics::test;

TEST(metricsSyntax, LabelValueEscapes)
{
    const MetricPage page =
        ExpositionParser::parse(R"(x{path="C:\\dir\\",say="\"hi\"",nl="a\nb",other="\d",utf="ü"} 1)"
                                "\n");
    // An unknown escape keeps the sample and its bytes, but is no longer silent.
    ASSERT_EQ(page.warnings.size(), 1u) << warningsText(page);
    EXPECT_EQ(
        countWarnings(page, 1, "unknown escape \"\\\\d\" in label other of x; kept as written"), 1)
        << warningsText(page);
    const Sample &s = page.samples.at(0);
    EXPECT_EQ(s.label("path"), "C:\\dir\\");
    EXPECT_EQ(s.label("say"), "\"hi\"");
    EXPECT_EQ(s.label("nl"), "a\nb");
    EXPECT_EQ(s.label("other"), "\\d"); // unknown escapes stay, as Prometheus keeps them
    EXPECT_EQ(s.label("utf"), "\xC3\xBC");
    ASSERT_EQ(s.labels.size(), 5u);
    EXPECT_EQ(s.labels[0].name, "path"); // page order
    EXPECT_EQ(s.labels[4].name, "utf");
}

TEST(metricsSyntax, HelpEscapesAndComments)
{
    const MetricPage page = ExpositionParser::parse("# a plain comment\n"
                                                    "#TYPE not_a_type_line counter\n"
                                                    R"(# HELP x   back\\slash\nnew line \t kept)"
                                                    "\n# TYPE x gauge\nx 1\n");
    ASSERT_TRUE(page.warnings.empty()) << warningsText(page);
    ASSERT_EQ(page.families.size(), 2u);
    EXPECT_EQ(page.family("not_a_type_line")->type, MetricType::Counter);
    EXPECT_EQ(page.family("x")->help, "back\\slash\nnew line \\t kept");
}

TEST(metricsSyntax, Values)
{
    const MetricPage page = ExpositionParser::parse("a NaN\n"
                                                    "b +Inf\n"
                                                    "c -Inf\n"
                                                    "d 1.5e3\n"
                                                    "e -2.5E-2\n"
                                                    "f +7\n"
                                                    "g Inf\n"
                                                    "h 0x10\n"
                                                    "i abc\n"
                                                    "j 1,5\n"
                                                    "k +-1\n"
                                                    "l\n");
    EXPECT_TRUE(std::isnan(valueOf(page, "a")));
    EXPECT_TRUE(findSample(page, "a") != nullptr);
    EXPECT_EQ(valueOf(page, "b"), INFINITY);
    EXPECT_EQ(valueOf(page, "c"), -INFINITY);
    EXPECT_EQ(valueOf(page, "d"), 1500);
    EXPECT_EQ(valueOf(page, "e"), -0.025);
    EXPECT_EQ(valueOf(page, "f"), 7);
    EXPECT_EQ(valueOf(page, "g"), INFINITY);
    EXPECT_EQ(page.samples.size(), 7u);
    EXPECT_EQ(countWarnings(page, 8, "invalid value \"0x10\" for h"), 1) << warningsText(page);
    EXPECT_EQ(countWarnings(page, 9, "invalid value \"abc\" for i"), 1);
    EXPECT_EQ(countWarnings(page, 10, "invalid value \"1,5\" for j"), 1);
    EXPECT_EQ(countWarnings(page, 11, "invalid value \"+-1\" for k"), 1);
    EXPECT_EQ(countWarnings(page, 12, "missing value for l"), 1);
    EXPECT_EQ(page.warnings.size(), 5u);
}

TEST(metricsSyntax, Timestamps)
{
    const MetricPage page = ExpositionParser::parse("a 1 1700000000000\n"
                                                    "b 2 -5\n"
                                                    "c\t3\t42  \n"
                                                    "d 4 1.5\n"
                                                    "e 5 17 extra\n");
    EXPECT_EQ(findSample(page, "a")->timestampMs, 1700000000000);
    EXPECT_EQ(findSample(page, "b")->timestampMs, -5);
    EXPECT_EQ(findSample(page, "c")->timestampMs, 42);
    EXPECT_EQ(valueOf(page, "c"), 3);
    EXPECT_EQ(countWarnings(page, 4, "invalid timestamp \"1.5\""), 1) << warningsText(page);
    EXPECT_EQ(countWarnings(page, 5, "unexpected text after timestamp: \"extra\""), 1);
    EXPECT_EQ(page.samples.size(), 3u);
}

TEST(metricsSyntax, LabelSetShapes)
{
    const MetricPage page = ExpositionParser::parse("a{} 1\n"
                                                    "b{x=\"1\",} 2\n"
                                                    "c { x = \"1\" , y=\"2\" } 3\n"
                                                    "d{x=\"1\",x=\"2\"} 4\n"
                                                    "e{1x=\"1\"} 5\n"
                                                    "f{x:y=\"1\"} 6\n"
                                                    "g{x=1} 7\n"
                                                    "h{x=\"1\" y=\"2\"} 8\n"
                                                    "i{x=\"1\"\n"
                                                    "j-k 9\n");
    EXPECT_EQ(valueOf(page, "a"), 1);
    EXPECT_EQ(valueOf(page, "b", {{"x", "1"}}), 2);
    EXPECT_EQ(valueOf(page, "c", {{"x", "1"}, {"y", "2"}}), 3);
    EXPECT_EQ(page.samples.size(), 3u);
    EXPECT_EQ(countWarnings(page, 4, "duplicate label name x in d"), 1) << warningsText(page);
    EXPECT_EQ(countWarnings(page, 5, "invalid label name \"1x=\\\"1\\\"}\" in e"), 1);
    EXPECT_EQ(countWarnings(page, 6, "expected '=' after label name x in f"), 1);
    EXPECT_EQ(countWarnings(page, 7, "expected '\"' to open label value (label x of g)"), 1);
    EXPECT_EQ(countWarnings(page, 8, "expected ',' or '}' after label x in h"), 1);
    EXPECT_EQ(countWarnings(page, 9, "unterminated label set of i"), 1);
    EXPECT_EQ(countWarnings(page, 10, "invalid character in metric name \"j-k\""), 1);
    EXPECT_EQ(page.warnings.size(), 7u);
}

TEST(metricsSyntax, TypeLines)
{
    const MetricPage page = ExpositionParser::parse("# TYPE a SUMMARY\n"
                                                    "# TYPE b gauge\n"
                                                    "# TYPE b counter\n"
                                                    "# TYPE c\n"
                                                    "# TYPE 9d gauge\n"
                                                    "# TYPE e untyped\n"
                                                    "# TYPE f info\n");
    EXPECT_EQ(countWarnings(page, 1, "unknown metric type \"SUMMARY\" for a; read as unknown"), 1)
        << warningsText(page);
    EXPECT_EQ(
        countWarnings(page, 3, "conflicting TYPE for family b: gauge, then counter; first kept"),
        1);
    EXPECT_EQ(countWarnings(page, 4, "TYPE line for c has no type"), 1);
    EXPECT_EQ(countWarnings(page, 5, "TYPE line without a valid metric name: \"9d\""), 1);
    EXPECT_EQ(page.warnings.size(), 4u);
    EXPECT_EQ(page.family("a")->type, MetricType::Unknown);
    EXPECT_EQ(page.family("b")->type, MetricType::Gauge);
    EXPECT_EQ(page.family("e")->type, MetricType::Untyped);
    EXPECT_EQ(page.family("f")->type, MetricType::Info);
    EXPECT_EQ(page.family("c"), nullptr);

    for (MetricType t : {MetricType::Unknown, MetricType::Counter, MetricType::Gauge,
                         MetricType::Histogram, MetricType::Summary, MetricType::Untyped,
                         MetricType::Info, MetricType::StateSet, MetricType::GaugeHistogram})
        EXPECT_EQ(typeFromName(typeName(t)), t) << typeName(t);
    EXPECT_EQ(typeName(MetricType::GaugeHistogram), "gaugehistogram");
    EXPECT_FALSE(typeFromName("Gauge").has_value());
}

TEST(metricsSyntax, SuffixesAreNotStrippedWithoutType)
{
    // Untyped `x` and `x_total`, `y_count` alone: nothing merged.
    const MetricPage page = ExpositionParser::parse("x 1\nx_total 2\ny_count 3\ny_sum 4\n");
    ASSERT_EQ(page.families.size(), 4u);
    EXPECT_EQ(page.families[0].name, "x");
    EXPECT_EQ(page.families[1].name, "x_total");
    EXPECT_EQ(page.families[2].name, "y_count");
    EXPECT_EQ(page.families[3].name, "y_sum");
    EXPECT_TRUE(page.warnings.empty());
}

TEST(metricsSyntax, HistogramAndSummaryGrouping)
{
    const MetricPage page = ExpositionParser::parse("# TYPE h histogram\n"
                                                    "h_bucket{le=\"1\"} 1\n"
                                                    "h_bucket{le=\"+Inf\"} 2\n"
                                                    "h_sum 4\n"
                                                    "h_count 2\n"
                                                    "# TYPE s summary\n"
                                                    "s{quantile=\"0.5\"} 3\n"
                                                    "s_sum 5\n"
                                                    "s_count 9\n"
                                                    "h_count{x=\"1\"} 1\n");
    const Family *h = page.family("h");
    const Family *s = page.family("s");
    ASSERT_NE(h, nullptr);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(page.families.size(), 2u);
    EXPECT_EQ(h->samples, (std::vector<std::size_t>{0, 1, 2, 3, 7}));
    EXPECT_EQ(s->samples, (std::vector<std::size_t>{4, 5, 6}));
    EXPECT_EQ(page.family("h_count"), nullptr);
    // The histogram comes back after the summary: merged, one warning.
    ASSERT_EQ(page.warnings.size(), 1u) << warningsText(page);
    EXPECT_EQ(countWarnings(page, 10, "family h appears in 2 groups; merged"), 1);
}

TEST(metricsSyntax, UntypedHistogramWithSumFirst)
{
    // client_python writes _sum before the buckets; without TYPE lines the
    // pieces still end up in one family.
    const MetricPage page = ExpositionParser::parse("lat_sum 4\n"
                                                    "lat_bucket{le=\"1\"} 1\n"
                                                    "lat_bucket{le=\"+Inf\"} 2\n"
                                                    "lat_count 2\n");
    ASSERT_EQ(page.families.size(), 1u) << page.families[0].name;
    EXPECT_EQ(page.families[0].name, "lat");
    EXPECT_EQ(page.families[0].type, MetricType::Unknown);
    EXPECT_EQ(page.families[0].samples, (std::vector<std::size_t>{0, 1, 2, 3}));
    EXPECT_EQ(page.families[0].line, 1);
    EXPECT_TRUE(page.warnings.empty()) << warningsText(page);
}

TEST(metricsSyntax, DuplicateSeriesIgnoresLabelOrder)
{
    const MetricPage page = ExpositionParser::parse("m{a=\"1\",b=\"2\"} 10\n"
                                                    "m{b=\"2\",a=\"1\"} 20\n"
                                                    "m{a=\"1\",b=\"3\"} 30\n"
                                                    "m{a=\"1\"} 40\n"
                                                    "m_total{a=\"1\"} 50\n");
    EXPECT_EQ(page.samples.size(), 4u);
    EXPECT_EQ(valueOf(page, "m", {{"a", "1"}, {"b", "2"}}), 10);
    ASSERT_EQ(page.warnings.size(), 1u) << warningsText(page);
    EXPECT_EQ(page.warnings[0].line, 2);
    EXPECT_EQ(page.warnings[0].reason,
              "duplicate sample dropped: m{b=\"2\",a=\"1\"}; first value (line 1) kept");
}

TEST(metricsSyntax, SplitIntoThreeGroups)
{
    const MetricPage page = ExpositionParser::parse("a 1\nb 1\na{x=\"1\"} 2\nb{x=\"1\"} 2\n"
                                                    "a{x=\"2\"} 3\n");
    ASSERT_EQ(page.families.size(), 2u);
    EXPECT_EQ(page.family("a")->samples.size(), 3u);
    EXPECT_EQ(countWarnings(page, 3, "family a appears in 3 groups; merged"), 1)
        << warningsText(page);
    EXPECT_EQ(countWarnings(page, 4, "family b appears in 2 groups; merged"), 1);
}

TEST(metricsSyntax, ConflictingHelpKeepsFirst)
{
    const MetricPage page =
        ExpositionParser::parse("# HELP a first\n# HELP a first\n# HELP a second\na 1\n");
    EXPECT_EQ(page.family("a")->help, "first");
    ASSERT_EQ(page.warnings.size(), 1u) << warningsText(page);
    EXPECT_EQ(countWarnings(page, 3, "conflicting HELP for family a; first kept"), 1);
}

TEST(metricsSyntax, CreatedFamiliesAreLinked)
{
    const MetricPage page = ExpositionParser::parse("# TYPE req_total counter\nreq_total 1\n"
                                                    "# TYPE req_created gauge\nreq_created 1.7e9\n"
                                                    "# TYPE lat histogram\nlat_count 1\n"
                                                    "lat_created 1.7e9\n"
                                                    "g 1\ng_created 2\n");
    EXPECT_EQ(page.family("req_created")->createdOf, "req_total");
    EXPECT_EQ(page.family("lat_created")->createdOf, "lat");
    EXPECT_EQ(page.family("g_created")->createdOf, ""); // g is no counter
}

TEST(metricsSyntax, LeadingBlanksAndMixedLineEndings)
{
    const MetricPage page = ExpositionParser::parse("  # TYPE a gauge\r\n\ta 1\r\n\r\nb 2\n");
    EXPECT_EQ(page.family("a")->type, MetricType::Gauge);
    EXPECT_EQ(valueOf(page, "a"), 1);
    EXPECT_EQ(valueOf(page, "b"), 2);
    ASSERT_EQ(page.warnings.size(), 1u) << warningsText(page);
    EXPECT_EQ(page.warnings[0].reason,
              "CRLF line endings (3 lines); '\\r' read as part of the line ending");
    EXPECT_EQ(page.warnings[0].line, 1);

    // A stray '\r' inside a line is not a line ending.
    const MetricPage bad = ExpositionParser::parse("a 1\rb 2\n");
    EXPECT_EQ(countWarnings(bad, 1, "invalid value \"1\\x0db\" for a"), 1) << warningsText(bad);
}
