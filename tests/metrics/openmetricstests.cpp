// OpenMetrics 1.0 beside text 0.0.4: how the format is chosen, and what the
// OpenMetrics dialect adds (UNIT, EOF, exemplars, `_total`/`_created`/`_info`
// grouping, seconds timestamps). Spec sections named per test.

#include "metricstesthelpers.h"

#include <cmath>
#include <gtest/gtest.h>
#include <string>

using namespace opsdeck::metrics;
using namespace opsdeck::metrics::test;

namespace {

MetricPage parseOm(std::string_view text)
{
    return ExpositionParser::parse(text, {.format = ParseOptions::Format::OpenMetrics});
}

} // namespace

TEST(metricsOpenMetrics, FormatChosenByContentTypeThenEof)
{
    const std::string om = "# TYPE a counter\na_total 1\n# EOF\n";
    const std::string text = "# TYPE a_total counter\na_total 1\n";
    const auto withType = [](std::string_view body, std::string type) {
        return ExpositionParser::parse(body, {.contentType = std::move(type)});
    };
    EXPECT_EQ(withType(om, "application/openmetrics-text; version=1.0.0; charset=utf-8").format,
              PageFormat::OpenMetrics);
    EXPECT_EQ(withType(om, "Application/OpenMetrics-Text").format, PageFormat::OpenMetrics);
    EXPECT_EQ(withType(om, "text/plain; version=0.0.4; charset=utf-8").format, PageFormat::Text004);
    EXPECT_EQ(withType(text, "text/plain; version=0.0.4").format, PageFormat::Text004);
    // No Content-Type (a file): a `# EOF` line decides, last or not.
    EXPECT_EQ(ExpositionParser::parse(om).format, PageFormat::OpenMetrics);
    EXPECT_EQ(ExpositionParser::parse("a 1\n# EOF").format, PageFormat::OpenMetrics);
    EXPECT_EQ(ExpositionParser::parse("a 1\r\n# EOF\r\n").format, PageFormat::OpenMetrics);
    EXPECT_EQ(ExpositionParser::parse(text).format, PageFormat::Text004);
    EXPECT_EQ(ExpositionParser::parse("a 1\n# EOF is not last\n").format, PageFormat::Text004);
    EXPECT_EQ(ExpositionParser::parse("# HELP a counts # EOF\na 1\n").format, PageFormat::Text004);
    EXPECT_EQ(ExpositionParser::parse("a 1\n# EOF \r\nb 2\n").format, PageFormat::OpenMetrics);
    EXPECT_EQ(ExpositionParser::parse("").format, PageFormat::Text004);
    // An explicit format wins over both.
    EXPECT_EQ(ExpositionParser::parse(om, {.format = ParseOptions::Format::Text004,
                                           .contentType = "application/openmetrics-text"})
                  .format,
              PageFormat::Text004);

    const MetricPage odd = withType(text, "text/html");
    EXPECT_EQ(odd.format, PageFormat::Text004);
    EXPECT_EQ(countWarnings(odd, 0,
                            "unexpected Content-Type \"text/html\"; read as Prometheus text "
                            "format 0.0.4"),
              1)
        << warningsText(odd);
    EXPECT_EQ(valueOf(odd, "a_total"), 1);
}

TEST(metricsOpenMetrics, SameBytesGroupedPerFormat)
{
    // OpenMetrics 1.0 "Counter": TYPE names the family without `_total`.
    const std::string body = "# TYPE req counter\nreq_total 4\nreq_created 1.5e9\n";
    const MetricPage om = ExpositionParser::parse(body + "# EOF\n");
    ASSERT_TRUE(om.warnings.empty()) << warningsText(om);
    ASSERT_EQ(om.families.size(), 1u);
    EXPECT_EQ(om.families[0].name, "req");
    EXPECT_EQ(om.families[0].type, MetricType::Counter);
    EXPECT_EQ(om.families[0].samples.size(), 2u);
    EXPECT_FALSE(findSample(om, "req_total")->isCreated);
    EXPECT_TRUE(findSample(om, "req_created")->isCreated);

    // Text 0.0.4 never strips suffixes: three families, counter `req` empty.
    const MetricPage text = ExpositionParser::parse(body);
    EXPECT_EQ(text.format, PageFormat::Text004);
    EXPECT_EQ(text.families.size(), 3u);
    EXPECT_TRUE(text.family("req")->samples.empty());
    EXPECT_EQ(text.family("req_total")->samples.size(), 1u);
    // ... but `req_created` is still the counter's creation time (Family::createdOf).
    EXPECT_EQ(text.family("req_created")->createdOf, "req");
    EXPECT_TRUE(findSample(text, "req_created")->isCreated);
}

TEST(metricsOpenMetrics, HandWrittenSpecPage)
{
    const MetricPage page = parseFile("O01_openmetrics_handwritten.om");
    ASSERT_TRUE(page.warnings.empty()) << warningsText(page);
    EXPECT_EQ(page.format, PageFormat::OpenMetrics);
    ASSERT_EQ(page.families.size(), 6u);
    EXPECT_EQ(page.samples.size(), 15u);

    const Family *prompt = page.family("sglang:prompt_tokens");
    ASSERT_NE(prompt, nullptr);
    EXPECT_EQ(prompt->type, MetricType::Counter);
    EXPECT_EQ(prompt->help, "Number of prefill tokens processed.");
    EXPECT_EQ(valueOf(page, "sglang:prompt_tokens_total"), 8128902);
    EXPECT_EQ(valueOf(page, "sglang:prompt_tokens_created"), 1700000000.5);
    EXPECT_TRUE(findSample(page, "sglang:prompt_tokens_created")->isCreated);

    const Family *e2e = page.family("sglang:e2e_request_latency_seconds");
    ASSERT_NE(e2e, nullptr);
    EXPECT_EQ(e2e->type, MetricType::Histogram);
    EXPECT_EQ(e2e->unit, "seconds");
    EXPECT_EQ(e2e->help, "Request latency, with \"quotes\".");
    EXPECT_EQ(e2e->samples.size(), 5u);
    // Exemplars are stripped, never read as the value or the timestamp.
    const Sample *bucket =
        findSample(page, "sglang:e2e_request_latency_seconds_bucket", {{"le", "0.5"}});
    ASSERT_NE(bucket, nullptr);
    EXPECT_EQ(bucket->value, 3);
    EXPECT_FALSE(bucket->timestampMs.has_value());
    EXPECT_EQ(bucket->labels.size(), 2u);
    EXPECT_EQ(valueOf(page, "sglang:e2e_request_latency_seconds_bucket", {{"le", "+Inf"}}), 7);
    EXPECT_TRUE(findSample(page, "sglang:e2e_request_latency_seconds_created")->isCreated);
    EXPECT_FALSE(findSample(page, "sglang:e2e_request_latency_seconds_count")->isCreated);

    const Sample *running = findSample(page, "sglang:num_running_reqs");
    ASSERT_NE(running, nullptr);
    EXPECT_EQ(running->value, 19);
    EXPECT_EQ(running->timestampMs, 1700000123456); // seconds with decimals -> ms

    const Family *build = page.family("vllm:build");
    ASSERT_NE(build, nullptr);
    EXPECT_EQ(build->type, MetricType::Info);
    ASSERT_EQ(build->samples.size(), 1u);
    const Sample &info = page.samples.at(build->samples[0]);
    EXPECT_EQ(info.name, "vllm:build_info");
    EXPECT_EQ(info.label("version"), "0.9.2");
    EXPECT_EQ(info.label("model_name"), "Mod\xC3\xA8le-\xC3\xBC"); // UTF-8 byte-exact

    const Family *state = page.family("engine_state");
    ASSERT_NE(state, nullptr);
    EXPECT_EQ(state->type, MetricType::StateSet);
    EXPECT_EQ(valueOf(page, "engine_state", {{"engine_state", "serving"}}), 1);
    EXPECT_EQ(valueOf(page, "engine_state", {{"engine_state", "draining"}}), 0);

    const Family *rpc = page.family("rpc_latency_seconds");
    ASSERT_NE(rpc, nullptr);
    EXPECT_EQ(rpc->type, MetricType::Summary);
    EXPECT_EQ(rpc->samples.size(), 4u);
    EXPECT_TRUE(std::isnan(valueOf(page, "rpc_latency_seconds", {{"quantile", "0.99"}})));
    EXPECT_EQ(valueOf(page, "rpc_latency_seconds_sum"), 15);
    EXPECT_TRUE(findSample(page, "rpc_latency_seconds_created")->isCreated);
}

TEST(metricsOpenMetrics, Exemplars)
{
    const MetricPage page =
        parseOm("# TYPE h histogram\n"
                "h_bucket{le=\"1\"} 2 # {trace_id=\"x\"} 1.0\n"
                "h_bucket{le=\"2\"} 3 1700000000.25 # {trace_id=\"y\"} 1.5 17e8\n"
                "h_bucket{le=\"4\"} 4 # {trace_id=\"z\" 2\n"
                "h_bucket{le=\"8\"} 5 # {} nope\n"
                "h_bucket{le=\"+Inf\"} 6 # trace_id=\"w\" 1\n"
                "h_count 6 # {a=\"" +
                std::string(130, 'a') +
                "\"} 1\n"
                "h_sum 9.5 # {a=\"b\"} 1 2 3\n"
                "# EOF\n");
    EXPECT_EQ(valueOf(page, "h_bucket", {{"le", "1"}}), 2);
    EXPECT_EQ(valueOf(page, "h_bucket", {{"le", "2"}}), 3);
    EXPECT_EQ(findSample(page, "h_bucket", {{"le", "2"}})->timestampMs, 1700000000250);
    // A malformed exemplar drops only itself: every sample is kept.
    EXPECT_EQ(valueOf(page, "h_bucket", {{"le", "4"}}), 4);
    EXPECT_EQ(valueOf(page, "h_bucket", {{"le", "8"}}), 5);
    EXPECT_EQ(valueOf(page, "h_bucket", {{"le", "+Inf"}}), 6);
    EXPECT_EQ(valueOf(page, "h_count"), 6);
    EXPECT_EQ(valueOf(page, "h_sum"), 9.5);
    EXPECT_EQ(page.samples.size(), 7u);
    EXPECT_EQ(countWarnings(page, 4,
                            "malformed exemplar of h_bucket dropped (expected ',' or '}' "
                            "after label trace_id in h_bucket); sample kept"),
              1)
        << warningsText(page);
    EXPECT_EQ(
        countWarnings(page, 5, "malformed exemplar of h_bucket dropped (invalid value \"nope\")"),
        1);
    EXPECT_EQ(
        countWarnings(page, 6, "malformed exemplar of h_bucket dropped (expected '{' after '#')"),
        1);
    EXPECT_EQ(countWarnings(page, 7, "(label set of 131 characters, over 128)"), 1);
    EXPECT_EQ(countWarnings(page, 8, "(unexpected text \"3\")"), 1);
    EXPECT_EQ(page.warnings.size(), 5u);

    // Text 0.0.4 has no exemplars: the same line is an error there.
    const MetricPage text = ExpositionParser::parse("h_count 6 # {a=\"b\"} 1\n");
    EXPECT_TRUE(text.samples.empty());
    EXPECT_EQ(countWarnings(text, 1, "invalid timestamp \"#\""), 1) << warningsText(text);
}

TEST(metricsOpenMetrics, TimestampsAreSeconds)
{
    const MetricPage page = parseOm("a 1 1700000000\n"
                                    "b 2 1700000000.001\n"
                                    "c 3 -1.5\n"
                                    "d 4 1.7e9\n"
                                    "e 5 soon\n"
                                    "f 6 1e30\n"
                                    "# EOF\n");
    EXPECT_EQ(findSample(page, "a")->timestampMs, 1700000000000);
    EXPECT_EQ(findSample(page, "b")->timestampMs, 1700000000001);
    EXPECT_EQ(findSample(page, "c")->timestampMs, -1500);
    EXPECT_EQ(findSample(page, "d")->timestampMs, 1700000000000);
    EXPECT_EQ(countWarnings(page, 5, "invalid timestamp \"soon\" (expected seconds)"), 1)
        << warningsText(page);
    EXPECT_EQ(countWarnings(page, 6, "invalid timestamp \"1e30\" (expected seconds)"), 1);
    EXPECT_EQ(page.samples.size(), 4u);
}

TEST(metricsOpenMetrics, EofRules)
{
    const MetricPage after = ExpositionParser::parse(
        "a 1\n# EOF\nb 2\n", {.contentType = "application/openmetrics-text"});
    EXPECT_EQ(after.samples.size(), 1u);
    EXPECT_EQ(countWarnings(after, 2, "text after \"# EOF\" ignored"), 1) << warningsText(after);
    EXPECT_EQ(after.warnings.size(), 1u);
    // A file (no Content-Type) with lines after `# EOF`: the same, not a text
    // page whose later lines would override the earlier ones.
    const MetricPage file = ExpositionParser::parse("# TYPE a gauge\na 1 1700000000.5\n# EOF\n"
                                                    "b 2\n");
    EXPECT_EQ(file.format, PageFormat::OpenMetrics);
    ASSERT_EQ(file.samples.size(), 1u);
    EXPECT_EQ(file.samples.front().value, 1);
    EXPECT_EQ(countWarnings(file, 3, "text after \"# EOF\" ignored"), 1) << warningsText(file);
    EXPECT_EQ(file.warnings.size(), 1u) << warningsText(file);

    const MetricPage missing =
        ExpositionParser::parse("a 1\nb 2\n", {.contentType = "application/openmetrics-text"});
    EXPECT_EQ(missing.samples.size(), 2u);
    EXPECT_EQ(countWarnings(missing, 2, "OpenMetrics page without \"# EOF\" line"), 1)
        << warningsText(missing);

    // `# EOF` without a final newline is complete, not truncated.
    const MetricPage noNewline = ExpositionParser::parse("a 1\n# EOF");
    EXPECT_TRUE(noNewline.warnings.empty()) << warningsText(noNewline);
}

TEST(metricsOpenMetrics, CrlfBomUnknownEscapeAndBadLines)
{
    const MetricPage page = ExpositionParser::parse("\xEF\xBB\xBF# TYPE g gauge\r\n"
                                                    "# UNIT g bytes\r\n"
                                                    "g{path=\"C:\\q\"} 1 1.5\r\n"
                                                    "g{path=\"ok\"} oops\r\n"
                                                    "g{path=\"\\\"x\\\"\\n\"} 2\r\n"
                                                    "# EOF\r\n");
    EXPECT_EQ(page.format, PageFormat::OpenMetrics);
    EXPECT_EQ(page.family("g")->unit, "bytes");
    const Sample *odd = findSample(page, "g", {{"path", "C:\\q"}});
    ASSERT_NE(odd, nullptr) << warningsText(page);
    EXPECT_EQ(odd->value, 1);
    EXPECT_EQ(odd->timestampMs, 1500);
    EXPECT_EQ(valueOf(page, "g", {{"path", "\"x\"\n"}}), 2);
    EXPECT_EQ(countWarnings(page, 2, "UNIT \"bytes\" is not a suffix of family name g"), 1)
        << warningsText(page);
    EXPECT_EQ(
        countWarnings(page, 3, "unknown escape \"\\\\q\" in label path of g; kept as written"), 1);
    EXPECT_EQ(countWarnings(page, 4, "invalid value \"oops\" for g"), 1);
    EXPECT_EQ(countWarnings(page, 1, "CRLF line endings (6 lines)"), 1);
    EXPECT_EQ(page.warnings.size(), 4u);
}

TEST(metricsOpenMetrics, SplitFamilyDuplicateSeriesAndStateSet)
{
    const MetricPage page = parseOm("# TYPE c counter\n"
                                    "c_total{a=\"1\"} 1\n"
                                    "# TYPE s stateset\n"
                                    "s{s=\"on\"} 1\n"
                                    "s{s=\"off\"} 2\n"
                                    "c_total{a=\"2\"} 2\n"
                                    "c_total{a=\"1\"} 9\n"
                                    "# EOF\n");
    const Family *c = page.family("c");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->samples.size(), 2u);
    EXPECT_EQ(valueOf(page, "c_total", {{"a", "1"}}), 1); // first kept
    EXPECT_EQ(valueOf(page, "s", {{"s", "off"}}), 2);
    EXPECT_EQ(countWarnings(page, 5, "stateset s has a value other than 0 or 1; kept"), 1)
        << warningsText(page);
    EXPECT_EQ(countWarnings(page, 6, "family c appears in 2 groups; merged"), 1);
    EXPECT_EQ(countWarnings(page, 7, "duplicate sample dropped: c_total{a=\"1\"}"), 1);
    EXPECT_EQ(page.warnings.size(), 3u);
}

TEST(metricsOpenMetrics, CreatedSeriesMarkedInTextFormatToo)
{
    const MetricPage page = ExpositionParser::parse("# TYPE x_total counter\n"
                                                    "x_total 3\n"
                                                    "x_created 1.7e9\n"
                                                    "# TYPE y_created gauge\n"
                                                    "y_created 2\n");
    EXPECT_EQ(page.family("x_created")->createdOf, "x_total");
    EXPECT_TRUE(findSample(page, "x_created")->isCreated);
    EXPECT_FALSE(findSample(page, "x_total")->isCreated);
    EXPECT_FALSE(findSample(page, "y_created")->isCreated);
}

TEST(metricsOpenMetrics, SizeLimitAppliesToOpenMetrics)
{
    const std::string body = "a_total 1\n# EOF\n";
    const MetricPage page = ExpositionParser::parse(
        body, {.maxPageBytes = body.size() - 1, .contentType = "application/openmetrics-text"});
    EXPECT_TRUE(page.samples.empty());
    ASSERT_EQ(page.warnings.size(), 1u);
    EXPECT_EQ(page.warnings[0].reason, "page is 16 bytes, over the limit of 15 bytes; not parsed");
}

TEST(metricsOpenMetrics, Utf8HelpAndValuesKeptNamesRejectedPerLine)
{
    // UTF-8 is fine in HELP and label values (byte-exact); metric names are
    // ASCII in both formats (OpenMetrics 1.0 "ABNF": metricname), so a non-ASCII
    // name costs that line only.
    const MetricPage page = parseOm("# HELP g D\xC3\xA9"
                                    "bit \xC2\xABtokens\xC2\xBB\n"
                                    "# TYPE g gauge\n"
                                    "g{model=\"Qwen-\xE4\xB8\xAD\xE6\x96\x87\"} 1\n"
                                    "mod\xC3\xA8le_x 2\n"
                                    "g2 3\n"
                                    "# EOF\n");
    EXPECT_EQ(page.family("g")->help, "D\xC3\xA9"
                                      "bit \xC2\xABtokens\xC2\xBB");
    EXPECT_EQ(valueOf(page, "g", {{"model", "Qwen-\xE4\xB8\xAD\xE6\x96\x87"}}), 1);
    EXPECT_EQ(countWarnings(page, 4, "invalid character in metric name \"mod\\xc3\\xa8le_x\""), 1)
        << warningsText(page);
    EXPECT_EQ(valueOf(page, "g2"), 3);
    EXPECT_EQ(page.warnings.size(), 1u);
}
