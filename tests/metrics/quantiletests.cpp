// HistogramQuantile: Prometheus' histogram_quantile over bucket deltas
// between two scrapes (rules in models/metrics/histogramquantile.h). Expected
// values are worked by hand with Prometheus' bucketQuantile.

#include "expositionparser.h"
#include "histogramquantile.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using namespace opsdeck::metrics;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

// Cumulative: 10 observations <= 0.1 s, 60 <= 0.5 s, 90 <= 1 s, 100 in all.
const std::vector<HistogramQuantile::Bucket> handMade = {{0.1, 10}, {0.5, 60}, {1, 90}, {inf, 100}};

std::string ttftPage(double b01, double b05, double b1, double all)
{
    auto line = [](const char *le, double v) {
        return std::string("vllm:time_to_first_token_seconds_bucket{le=\"") + le + "\"} " +
               std::to_string(v) + "\n";
    };
    return "# TYPE vllm:time_to_first_token_seconds histogram\n" + line("0.1", b01) +
           line("0.5", b05) + line("1.0", b1) + line("+Inf", all) +
           "vllm:time_to_first_token_seconds_count " + std::to_string(all) + "\n";
}

} // namespace

TEST(metricsQuantile, InterpolatesLinearlyInsideTheBucket)
{
    // p50: rank = 0.5 * 100 = 50; first bucket with count >= 50 is le=0.5
    // (60). Start 0.1, end 0.5, in bucket 60 - 10 = 50, rank 50 - 10 = 40:
    // 0.1 + (0.5 - 0.1) * 40 / 50 = 0.1 + 0.32 = 0.42.
    EXPECT_DOUBLE_EQ(HistogramQuantile::quantile(0.5, handMade), 0.42);
    // p90: rank 90 -> le=1 (90 >= 90): 0.5 + 0.5 * (90 - 60) / (90 - 60) = 1.
    EXPECT_DOUBLE_EQ(HistogramQuantile::quantile(0.9, handMade), 1);
    // p80: rank 80 -> le=1: 0.5 + 0.5 * (80 - 60) / 30 = 0.5 + 1/3.
    EXPECT_DOUBLE_EQ(HistogramQuantile::quantile(0.8, handMade), 0.5 + 0.5 * 20.0 / 30.0);
}

TEST(metricsQuantile, InfBucketGivesThePreviousUpperBound)
{
    // p95: rank 95 > 90 (le=1), so only +Inf holds it: the largest finite
    // bound, 1. p99 (rank 99) likewise.
    EXPECT_DOUBLE_EQ(HistogramQuantile::quantile(0.95, handMade), 1);
    EXPECT_DOUBLE_EQ(HistogramQuantile::quantile(0.99, handMade), 1);
}

TEST(metricsQuantile, LowestBucketInterpolatesFromZero)
{
    // p5: rank 5 -> le=0.1 (10 >= 5), the first bucket: 0 + 0.1 * 5 / 10 = 0.05.
    EXPECT_DOUBLE_EQ(HistogramQuantile::quantile(0.05, handMade), 0.05);
    // A lowest bound <= 0 is returned as is: rank 3 of 10 -> le=0 -> 0; le=-1 -> -1.
    EXPECT_EQ(HistogramQuantile::quantile(0.3, {{0, 5}, {1, 10}, {inf, 10}}), 0);
    EXPECT_EQ(HistogramQuantile::quantile(0.3, {{-1, 5}, {1, 10}, {inf, 10}}), -1);
}

TEST(metricsQuantile, FirstAndLastBucketsAreBoundsNotInterpolations)
{
    QuantileBound bound = QuantileBound::None;
    // In the first bucket: "at most 0.1 s", never the interpolated 0.05 that looks exact.
    EXPECT_DOUBLE_EQ(HistogramQuantile::quantile(0.05, handMade, &bound), 0.1);
    EXPECT_EQ(bound, QuantileBound::Upper);
    EXPECT_STREQ(quantileBoundName(bound), "upper");
    // In the +Inf bucket: "above 1 s".
    EXPECT_DOUBLE_EQ(HistogramQuantile::quantile(0.99, handMade, &bound), 1);
    EXPECT_EQ(bound, QuantileBound::Lower);
    EXPECT_STREQ(quantileBoundName(bound), "lower");
    // Between two edges: interpolated, no bound.
    EXPECT_DOUBLE_EQ(HistogramQuantile::quantile(0.5, handMade, &bound), 0.42);
    EXPECT_EQ(bound, QuantileBound::None);

    // SGLang's TTFT under 100 ms: p50 and p99 both in the first bucket.
    const MetricPage p1 = ExpositionParser::parse(ttftPage(0, 0, 0, 0));
    const MetricPage p2 = ExpositionParser::parse(ttftPage(40, 40, 40, 40));
    const WindowQuantiles w = HistogramQuantile::forConcept(Concept::Ttft, p1, p2);
    EXPECT_DOUBLE_EQ(w.p50, 0.1);
    EXPECT_EQ(w.p50Bound, QuantileBound::Upper);
    EXPECT_EQ(w.p99Bound, QuantileBound::Upper);
    EXPECT_DOUBLE_EQ(w.firstEdge, 0.1);
    EXPECT_DOUBLE_EQ(w.lastFiniteEdge, 1.0);
}

TEST(metricsQuantile, MonotonicityIsForcedAndOrderDoesNotMatter)
{
    // le=0.5 falls to 8: lifted to 10 -> {10, 10, 20, 20}. p75: rank 15 ->
    // le=1: 0.5 + 0.5 * (15 - 10) / (20 - 10) = 0.75 (unfixed: 0.5 + 0.5 * 7 / 12).
    EXPECT_DOUBLE_EQ(HistogramQuantile::quantile(0.75, {{inf, 20}, {1, 20}, {0.5, 8}, {0.1, 10}}),
                     0.75);
}

TEST(metricsQuantile, NaNWithoutObservationsOrInfBucketAndInfOutsideZeroToOne)
{
    EXPECT_TRUE(std::isnan(HistogramQuantile::quantile(0.5, {{0.1, 0}, {1, 0}, {inf, 0}})));
    EXPECT_TRUE(std::isnan(HistogramQuantile::quantile(0.5, {{0.1, 1}, {1, 2}})));
    EXPECT_TRUE(std::isnan(HistogramQuantile::quantile(0.5, {{inf, 5}}))); // < 2 buckets
    EXPECT_TRUE(std::isnan(HistogramQuantile::quantile(0.5, {})));
    EXPECT_EQ(HistogramQuantile::quantile(1.5, handMade), inf);
    EXPECT_EQ(HistogramQuantile::quantile(-0.5, handMade), -inf);
}

TEST(metricsQuantile, WindowUsesBucketDeltas)
{
    const MetricPage p1 = ExpositionParser::parse(ttftPage(5, 20, 30, 30));
    const MetricPage p2 = ExpositionParser::parse(ttftPage(15, 80, 120, 130));
    // Deltas {10, 60, 90, 100}: the hand-made buckets above.
    const WindowQuantiles w = HistogramQuantile::forConcept(Concept::Ttft, p1, p2);
    ASSERT_TRUE(w.present);
    EXPECT_FALSE(w.reset);
    EXPECT_EQ(w.observations, 100);
    EXPECT_DOUBLE_EQ(w.p50, 0.42);
    EXPECT_DOUBLE_EQ(w.p95, 1);
    EXPECT_DOUBLE_EQ(w.p99, 1);
    EXPECT_EQ(w.p50Bound, QuantileBound::None);
    EXPECT_EQ(w.p95Bound, QuantileBound::Lower);
    EXPECT_FALSE(HistogramQuantile::forConcept(Concept::Itl, p1, p2).present);
}

TEST(metricsQuantile, EmptyWindowIsNaN)
{
    const MetricPage p = ExpositionParser::parse(ttftPage(5, 20, 30, 30));
    const WindowQuantiles w = HistogramQuantile::forConcept(Concept::Ttft, p, p);
    ASSERT_TRUE(w.present);
    EXPECT_EQ(w.observations, 0);
    EXPECT_TRUE(std::isnan(w.p50));
    EXPECT_TRUE(std::isnan(w.p95));
    EXPECT_TRUE(std::isnan(w.p99));
}

TEST(metricsQuantile, ResetWindowUsesTheSecondPageAlone)
{
    // le=0.1 and le=0.5 fell (restart): the series counts from 0, so the
    // window is the second page itself, {10, 60, 90, 100} -> p50 0.42.
    const MetricPage p1 = ExpositionParser::parse(ttftPage(50, 100, 100, 100));
    const MetricPage p2 = ExpositionParser::parse(ttftPage(10, 60, 90, 100));
    const WindowQuantiles w = HistogramQuantile::forConcept(Concept::Ttft, p1, p2);
    EXPECT_TRUE(w.reset);
    EXPECT_EQ(w.observations, 100);
    EXPECT_DOUBLE_EQ(w.p50, 0.42);
}
