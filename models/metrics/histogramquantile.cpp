#include "histogramquantile.h"

#include "aggregation.h"
#include "conceptresolver.h"
#include "counterrate.h"

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

/// The group of the histogram series a bucket belongs to: its group key
/// (Aggregation rule 1) without `le`, so all its buckets reset together.
std::string seriesGroup(const Sample &bucket)
{
    std::vector<const Label *> kept;
    for (const Label &l : bucket.labels)
        if (l.name != "le")
            kept.push_back(&l);
    Sample copy;
    copy.labels = LabelList(kept);
    return Aggregation::groupKey(copy);
}

/// First non-NaN sample per group key (replicas folded), keyed by the key.
std::map<std::string, const Sample *> folded(const std::vector<const Sample *> &samples)
{
    std::map<std::string, const Sample *> groups;
    for (const Sample *s : samples)
        if (!std::isnan(s->value))
            groups.emplace(Aggregation::groupKey(*s), s);
    return groups;
}

} // namespace

std::span<const Concept> HistogramQuantile::latencyConcepts()
{
    static constexpr Concept latencies[] = {Concept::Ttft, Concept::Itl, Concept::E2e};
    return latencies;
}

double HistogramQuantile::quantile(double q, std::vector<Bucket> buckets)
{
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
    if (b == merged.size() - 1)
        return merged[merged.size() - 2].first;
    if (b == 0 && merged[0].first <= 0)
        return merged[0].first;
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
    const auto first = folded(before.samplesNamed(base + "_bucket"));
    const auto second = folded(after.samplesNamed(base + "_bucket"));

    // Pass 1: which histogram series were reset (any bucket fell, or _count
    // fell, or its _created changed). Per series, not per bucket: a restarted
    // series must not mix a delta in one bucket with a raw value in the next.
    std::map<std::string, bool> seriesReset;
    auto markFall = [&](const std::map<std::string, const Sample *> &a,
                        const std::map<std::string, const Sample *> &b, bool isBucket) {
        for (const auto &[key, s] : b) {
            const auto it = a.find(key);
            if (it == a.end())
                continue;
            const std::string group = isBucket ? seriesGroup(*s) : key;
            const auto created1 = CounterRate::createdTime(before, *it->second);
            const auto created2 = CounterRate::createdTime(after, *s);
            bool &flag = seriesReset[group];
            flag = flag || restarted || s->value < it->second->value ||
                   (created1 && created2 && *created1 != *created2);
        }
    };
    markFall(first, second, true);
    markFall(folded(before.samplesNamed(base + "_count")),
             folded(after.samplesNamed(base + "_count")), false);

    // Pass 2: deltas, summed per bound.
    std::map<double, double> perBound;
    bool anyReset = false;
    for (const auto &[key, s] : second) {
        const auto it = first.find(key);
        const auto bound = Aggregation::parseBound(s->label("le"));
        if (it == first.end() || !bound)
            continue;
        const bool wasReset = seriesReset[seriesGroup(*s)];
        anyReset = anyReset || wasReset;
        perBound[*bound] += wasReset ? s->value : s->value - it->second->value;
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
    const Resolution first = beforeNames.resolve(which);
    const Resolution second = afterNames.resolve(which);
    if (!first.found() || !second.found() || first.family != second.family)
        return result;
    const std::vector<Bucket> buckets = windowBuckets(before, after, second.family, &result.reset);
    if (buckets.empty())
        return result;
    result.present = true;
    if (std::isinf(buckets.back().first))
        result.observations = buckets.back().second;
    result.p50 = quantile(0.5, buckets);
    result.p95 = quantile(0.95, buckets);
    result.p99 = quantile(0.99, buckets);
    return result;
}

} // namespace opsdeck::metrics
