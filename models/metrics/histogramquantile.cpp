#include "histogramquantile.h"

#include "aggregation.h"
#include "conceptresolver.h"
#include "counterrate.h"
#include "foldedseries.h"
#include "seriesgroup.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <string>

namespace opsdeck::metrics {

namespace {

/// Prometheus' smallDeltaTolerance (promql/quantile.go).
constexpr double smallDeltaTolerance = 1e-12;

/// Prometheus' almost.Equal (util/almost): relative comparison, with an
/// absolute one near zero where a relative error means nothing.
bool almostEqual(double a, double b, double epsilon)
{
    if (a == b)
        return true;
    constexpr double minNormal = std::numeric_limits<double>::min();
    const double absSum = std::fabs(a) + std::fabs(b);
    const double diff = std::fabs(a - b);
    if (a == 0 || b == 0 || absSum < minNormal)
        return diff < epsilon * minNormal;
    return diff / std::min(absSum, std::numeric_limits<double>::max()) < epsilon;
}

/// A series on both pages: (after, before).
using Match = std::pair<const Sample *, const Sample *>;

/// The groups of `after` that are on `before` too, in `after`'s page order.
std::vector<Match> matched(const FoldedSeries &before, const FoldedSeries &after)
{
    std::vector<Match> pairs;
    pairs.reserve(after.inOrder.size());
    for (const SeriesGroup &group : after.inOrder)
        if (const Sample *earlier = before.find(group))
            pairs.emplace_back(&group.sample(), earlier);
    return pairs;
}

} // namespace

std::span<const Concept> HistogramQuantile::latencyConcepts()
{
    static constexpr Concept latencies[] = {Concept::Ttft, Concept::Itl, Concept::E2e};
    return latencies;
}

const char *quantileBoundName(QuantileBound bound)
{
    switch (bound) {
    case QuantileBound::Upper:
        return "upper";
    case QuantileBound::Lower:
        return "lower";
    case QuantileBound::None:
        break;
    }
    return "";
}

double HistogramQuantile::quantile(double q, std::vector<Bucket> buckets, QuantileBound *bound)
{
    if (bound)
        *bound = QuantileBound::None;
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    if (std::isnan(q))
        return nan;
    if (q < 0)
        return -std::numeric_limits<double>::infinity();
    if (q > 1)
        return std::numeric_limits<double>::infinity();
    if (buckets.empty())
        return nan;
    std::sort(buckets.begin(), buckets.end(),
              [](const Bucket &a, const Bucket &b) { return a.first < b.first; });
    if (!std::isinf(buckets.back().first) || buckets.back().first < 0)
        return nan;
    // coalesceBuckets: one bucket per bound.
    std::vector<Bucket> merged;
    for (const Bucket &b : buckets) {
        if (!merged.empty() && merged.back().first == b.first)
            merged.back().second += b.second;
        else
            merged.push_back(b);
    }
    // ensureMonotonicAndIgnoreSmallDeltas: `prev` stays at the last accepted count.
    double prev = merged.front().second;
    for (std::size_t i = 1; i < merged.size(); ++i) {
        const double curr = merged[i].second;
        if (curr == prev)
            continue;
        if (almostEqual(prev, curr, smallDeltaTolerance) || curr < prev) {
            merged[i].second = prev;
            continue;
        }
        prev = curr;
    }
    if (merged.size() < 2)
        return nan;
    const double observations = merged.back().second;
    if (observations == 0)
        return nan;
    double rank = q * observations;
    // sort.Search over all but +Inf: the first bucket whose count reaches the rank.
    const auto last = merged.end() - 1;
    const std::size_t b = static_cast<std::size_t>(
        std::partition_point(merged.begin(), last,
                             [rank](const Bucket &x) { return x.second < rank; }) -
        merged.begin());
    if (b == merged.size() - 1) {
        if (bound)
            *bound = QuantileBound::Lower;
        return merged[merged.size() - 2].first;
    }
    if (b == 0 && merged[0].first <= 0)
        return merged[0].first;
    if (b == 0 && bound) {
        *bound = QuantileBound::Upper;
        return merged[0].first;
    }
    double bucketStart = 0;
    const double bucketEnd = merged[b].first;
    double count = merged[b].second;
    if (b > 0) {
        bucketStart = merged[b - 1].first;
        count -= merged[b - 1].second;
        rank -= merged[b - 1].second;
    }
    return bucketStart + (bucketEnd - bucketStart) * (rank / count);
}

std::vector<HistogramQuantile::Bucket> HistogramQuantile::windowBuckets(const MetricPage &before,
                                                                        const MetricPage &after,
                                                                        std::string_view family,
                                                                        bool *reset)
{
    const std::string base(family);
    const bool restarted = CounterRate::processRestarted(before, after);
    const std::vector<Match> buckets = matched(FoldedSeries(before.samplesNamed(base + "_bucket")),
                                               FoldedSeries(after.samplesNamed(base + "_bucket")));

    // Pass 1: which histogram series were reset (any bucket fell, or _count
    // fell, or its _created changed). Per series (its buckets share one
    // identity without `le`), not per bucket: a restarted series must not mix
    // a delta in one bucket with a raw value in the next. Map values stay put
    // (node-based), so each bucket keeps a pointer to its series' flag.
    SeriesGroupMap<bool> seriesReset;
    std::vector<const bool *> bucketSeries;
    bucketSeries.reserve(buckets.size());
    auto markFall = [&](const std::vector<Match> &pairs, std::vector<const bool *> *flags) {
        for (const auto &[s, earlier] : pairs) {
            const auto [flag, added] = seriesReset.try_emplace(
                SeriesGroup(*s, SeriesGroup::Replicas::Drop, SeriesGroup::Le::Drop), restarted);
            if (added) {
                // One `_created` per series, not per bucket.
                const auto created1 = CounterRate::createdTime(before, *earlier);
                const auto created2 = CounterRate::createdTime(after, *s);
                flag->second = flag->second || (created1 && created2 && *created1 != *created2);
            }
            flag->second = flag->second || s->value < earlier->value;
            if (flags)
                flags->push_back(&flag->second);
        }
    };
    markFall(buckets, &bucketSeries);
    markFall(matched(FoldedSeries(before.samplesNamed(base + "_count")),
                     FoldedSeries(after.samplesNamed(base + "_count"))),
             nullptr);

    // Pass 2: deltas, summed per bound.
    std::map<double, double> perBound;
    bool anyReset = false;
    for (std::size_t i = 0; i < buckets.size(); ++i) {
        const auto &[s, earlier] = buckets[i];
        const auto bound = Aggregation::parseBound(s->label("le"));
        if (!bound)
            continue;
        const bool wasReset = *bucketSeries[i];
        anyReset = anyReset || wasReset;
        perBound[*bound] += wasReset ? s->value : s->value - earlier->value;
    }
    if (reset)
        *reset = anyReset;
    return {perBound.begin(), perBound.end()};
}

WindowQuantiles HistogramQuantile::forConcept(Concept which, const MetricPage &before,
                                              const MetricPage &after, Profile profile)
{
    return forConcept(which, before, ConceptResolver(before, profile), after,
                      ConceptResolver(after, profile));
}

WindowQuantiles HistogramQuantile::forConcept(Concept which, const MetricPage &before,
                                              const ConceptResolver &beforeNames,
                                              const MetricPage &after,
                                              const ConceptResolver &afterNames)
{
    WindowQuantiles result;
    const Resolution &first = beforeNames.resolve(which);
    const Resolution &second = afterNames.resolve(which);
    if (!first.found() || !second.found() || first.family != second.family)
        return result;
    const std::vector<Bucket> buckets = windowBuckets(before, after, second.family, &result.reset);
    if (buckets.empty())
        return result;
    result.present = true;
    if (std::isinf(buckets.back().first))
        result.observations = buckets.back().second;
    result.p50 = quantile(0.5, buckets, &result.p50Bound);
    result.p95 = quantile(0.95, buckets, &result.p95Bound);
    result.p99 = quantile(0.99, buckets, &result.p99Bound);
    for (const Bucket &bucket : buckets) {
        if (std::isinf(bucket.first))
            continue;
        if (std::isnan(result.firstEdge))
            result.firstEdge = bucket.first;
        result.lastFiniteEdge = bucket.first;
    }
    return result;
}

} // namespace opsdeck::metrics
