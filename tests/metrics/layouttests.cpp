// The parsed page's memory layout (metricpage.h, labellist.h, pagearena.h) and
// the parser's shortcuts for lines that repeat the line before
// (samplelineparser.h): views outlive the parsed text, copies share storage,
// equal labels are one object, and no shortcut skips a check or a warning.

#include "metricstesthelpers.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <string>

using namespace opsdeck::metrics;
using namespace opsdeck::metrics::test;

TEST(metricsLayout, ViewsOutliveTheParsedTextAndLiveInCopiesOfThePage)
{
    auto text = std::make_unique<std::string>("# TYPE req_total counter\n"
                                              "req_total{path=\"/v1/chat\",code=\"200\"} 7\n"
                                              "req_total{path=\"/v1/chat\",code=\"500\"} 1\n");
    auto original = std::make_unique<MetricPage>(ExpositionParser::parse(*text));
    // Overwrite and free the text: nothing on the page may point into it.
    std::memset(text->data(), 'X', text->size());
    text.reset();
    const MetricPage copy = *original;
    original.reset(); // the copy alone keeps the storage alive
    ASSERT_EQ(copy.samples.size(), 2u) << warningsText(copy);
    EXPECT_EQ(copy.samples[0].name, "req_total");
    EXPECT_EQ(copy.samples[1].label("path"), "/v1/chat");
    EXPECT_EQ(copy.samples[1].label("code"), "500");
    EXPECT_EQ(copy.samples[1].labels.back().name, "code");
    ASSERT_NE(copy.storage, nullptr);
}

TEST(metricsLayout, EqualLabelsAreOneObjectAndEqualLabelSetsShareOneList)
{
    const MetricPage page = ExpositionParser::parse("# TYPE lat histogram\n"
                                                    "lat_bucket{model=\"m\",le=\"1\"} 2\n"
                                                    "lat_bucket{model=\"m\",le=\"+Inf\"} 3\n"
                                                    "lat_sum{model=\"m\"} 4.5\n"
                                                    "lat_count{model=\"m\"} 3\n"
                                                    "other{le=\"1\",model=\"m\"} 1\n");
    ASSERT_EQ(page.samples.size(), 5u) << warningsText(page);
    const Sample &bucket = page.samples[0];
    const Sample &inf = page.samples[1];
    const Sample &sum = page.samples[2];
    const Sample &count = page.samples[3];
    const Sample &other = page.samples[4];
    EXPECT_EQ(&bucket.labels[0], &inf.labels[0]);   // model="m", taken from the line before
    EXPECT_NE(&bucket.labels[1], &inf.labels[1]);   // le differs
    EXPECT_EQ(&bucket.labels[1], &other.labels[0]); // le="1", found again lines later
    EXPECT_EQ(&bucket.labels[0], &other.labels[1]);
    EXPECT_EQ(sum.labels.pointers().data(), count.labels.pointers().data()); // one list
    EXPECT_EQ(inf.label("le"), "+Inf");
    EXPECT_EQ(count.labels.size(), 1u);
}

TEST(metricsLayout, RepeatedLabelTextStillGetsEveryCheck)
{
    const MetricPage page = ExpositionParser::parse(
        // 1-2: label 2 repeats line 1's text, but label 1 now has the same name
        "a{x=\"1\",y=\"2\"} 1\n"
        "a{y=\"3\",y=\"2\"} 2\n"
        // 3-4: a label with an unknown escape warns on every line that has it
        "b{x=\"1\",y=\"\\d\"} 3\n"
        "b{x=\"2\",y=\"\\d\"} 4\n"
        // 5-6: the same series with its labels in another order is a duplicate
        "c{x=\"1\",y=\"2\"} 5\n"
        "c{y=\"2\",x=\"1\"} 6\n"
        // 7-8: repeated text followed by garbage is still an error
        "d{x=\"1\"} 7\n"
        "d{x=\"1\"}} 8\n"
        // 9-10: a name that only starts like the one before
        "e{x=\"1\"} 9\n"
        "e_total{x=\"1\"} 10\n");
    EXPECT_EQ(countWarnings(page, 2, "duplicate label name y in a"), 1) << warningsText(page);
    EXPECT_EQ(countWarnings(page, 3, "unknown escape"), 1) << warningsText(page);
    EXPECT_EQ(countWarnings(page, 4, "unknown escape"), 1) << warningsText(page);
    EXPECT_EQ(countWarnings(page, 6, "duplicate sample dropped"), 1) << warningsText(page);
    EXPECT_EQ(valueOf(page, "c"), 5); // the first value is kept
    EXPECT_EQ(countWarnings(page, 8, "invalid value"), 1) << warningsText(page);
    EXPECT_EQ(valueOf(page, "e_total", {{"x", "1"}}), 10);
    EXPECT_EQ(findSample(page, "b", {{"x", "2"}})->label("y"), "\\d");
    EXPECT_EQ(page.samples.size(), 7u) << warningsText(page);
}

TEST(metricsLayout, SampleValuesAreBitForBitWhatFromCharsReads)
{
    // parseValue's short path (digits that fit 53 bits, |exponent| <= 22) must
    // round exactly as std::from_chars does; the rest goes to from_chars.
    const char *const values[] = {"0.1",
                                  "0.3",
                                  "6.0",
                                  "123859.0",
                                  "140.76470568188876",
                                  "9007199254740993",
                                  "900719925474099.3",
                                  "1e22",
                                  "1e23",
                                  "1.5e-22",
                                  "4.35",
                                  "2.5E+3",
                                  "1e-7",
                                  "0.000001",
                                  "-12.5",
                                  "1.7976931348623157e308",
                                  "4.9e-324",
                                  "5.",
                                  ".5"};
    std::string text;
    for (std::size_t i = 0; i < std::size(values); ++i)
        text += "v{i=\"" + std::to_string(i) + "\"} " + values[i] + "\n";
    text += "negative_zero -0.0\n";
    const MetricPage page = ExpositionParser::parse(text);
    ASSERT_TRUE(page.warnings.empty()) << warningsText(page);
    for (std::size_t i = 0; i < std::size(values); ++i) {
        const std::string_view token = values[i];
        double expected = 0;
        std::from_chars(token.data(), token.data() + token.size(), expected);
        EXPECT_EQ(valueOf(page, "v", {{"i", std::to_string(i)}}), expected) << token;
    }
    EXPECT_TRUE(std::signbit(valueOf(page, "negative_zero")));
}
