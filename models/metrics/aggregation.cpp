#include "aggregation.h"

#include "seriesgroup.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

namespace opsdeck::metrics {

namespace {

struct Group
{
    double value = 0;
    const Sample *first = nullptr;
};

struct Folded
{
    std::vector<Group> groups; ///< in page order of their first series
    std::vector<std::string> warnings;
};

std::string shortValue(double v)
{
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
    return std::string(buffer, result.ptr);
}

/// Rule 1: one value per group, the first non-NaN series; a disagreeing copy
/// is reported once per group.
Folded foldReplicas(std::span<const Sample *const> samples, std::string_view what)
{
    Folded folded;
    SeriesGroupMap<std::size_t> index;
    std::vector<bool> warned;
    for (const Sample *s : samples) {
        if (!s || std::isnan(s->value))
            continue;
        const auto [it, added] = index.try_emplace(SeriesGroup(*s), folded.groups.size());
        if (added) {
            folded.groups.push_back({s->value, s});
            warned.push_back(false);
            continue;
        }
        Group &group = folded.groups[it->second];
        if (group.value != s->value && !warned[it->second]) {
            warned[it->second] = true;
            folded.warnings.push_back(
                std::string(what) + ": tp_rank copies of {" + Aggregation::groupKey(*group.first) +
                "} disagree (line " + std::to_string(group.first->line) + ": " +
                shortValue(group.value) + ", line " + std::to_string(s->line) + ": " +
                shortValue(s->value) + "); the first is used");
        }
    }
    return folded;
}

} // namespace

std::optional<double> HistogramAggregate::mean() const
{
    if (count <= 0 || !hasSum)
        return std::nullopt;
    return sum / count;
}

std::optional<double> HistogramAggregate::shareAtOrBelow(double le) const
{
    if (count <= 0)
        return std::nullopt;
    for (const auto &[bound, cumulative] : buckets)
        if (bound == le)
            return cumulative / count;
    return std::nullopt;
}

std::string Aggregation::groupKey(const Sample &sample)
{
    std::vector<const Label *> kept;
    for (const Label &l : sample.labels)
        if (!SeriesGroup::isReplicaLabel(l.name))
            kept.push_back(&l);
    std::sort(kept.begin(), kept.end(),
              [](const Label *a, const Label *b) { return a->name < b->name; });
    std::string key;
    for (const Label *l : kept) {
        if (!key.empty())
            key += ',';
        key.append(l->name).append("=\"").append(l->value).append("\"");
    }
    return key;
}

namespace {

// What every fold shares: replicas folded, their warnings and the group count
// kept; `combine` turns the groups into the value (not called when there are none).
template <typename Combine>
Aggregate foldGroups(std::span<const Sample *const> samples, std::string_view what, Combine combine)
{
    Folded folded = foldReplicas(samples, what);
    Aggregate result;
    result.warnings = std::move(folded.warnings);
    result.groups = static_cast<int>(folded.groups.size());
    if (!folded.groups.empty())
        combine(folded.groups, result);
    return result;
}

} // namespace

Aggregate Aggregation::sum(std::span<const Sample *const> samples, std::string_view what)
{
    return foldGroups(samples, what, [](const auto &groups, Aggregate &result) {
        double total = 0;
        for (const Group &g : groups)
            total += g.value;
        result.value = total;
    });
}

Aggregate Aggregation::average(std::span<const Sample *const> samples, std::string_view what)
{
    return foldGroups(samples, what, [](const auto &groups, Aggregate &result) {
        double total = 0;
        double max = -std::numeric_limits<double>::infinity();
        for (const Group &g : groups) {
            total += g.value;
            max = std::max(max, g.value);
        }
        result.value = total / static_cast<double>(groups.size());
        result.max = max;
    });
}

Aggregate Aggregation::health(std::span<const Sample *const> samples, std::string_view what)
{
    return foldGroups(samples, what, [](const auto &groups, Aggregate &result) {
        double healthy = 0;
        for (const Group &g : groups)
            healthy += g.value >= 1 ? 1 : 0;
        result.value = healthy;
    });
}

namespace {

enum class Parts
{
    All,
    SumAndCount
};

HistogramAggregate foldHistogram(const MetricPage &page, std::string_view family, Parts parts)
{
    HistogramAggregate result;
    const std::string base(family);
    const std::string what = base + " histogram";
    const auto sums = page.samplesNamed(base + "_sum");
    const auto counts = page.samplesNamed(base + "_count");
    const bool wantBuckets = parts == Parts::All || counts.empty();
    const auto buckets =
        wantBuckets ? page.samplesNamed(base + "_bucket") : std::vector<const Sample *>();
    result.present = !sums.empty() || !counts.empty() || !buckets.empty();
    result.hasSum = !sums.empty();

    auto collect = [&result](Folded folded) {
        for (std::string &w : folded.warnings)
            result.warnings.push_back(std::move(w));
        return folded.groups;
    };
    for (const Group &g : collect(foldReplicas(sums, what + " _sum")))
        result.sum += g.value;
    for (const Group &g : collect(foldReplicas(counts, what + " _count")))
        result.count += g.value;

    std::map<double, double> perBound;
    for (const Group &g : collect(foldReplicas(buckets, what + " _bucket"))) {
        const auto bound = Aggregation::parseBound(g.first->label("le"));
        if (bound)
            perBound[*bound] += g.value;
    }
    result.buckets.assign(perBound.begin(), perBound.end());
    // A page without _count still has the +Inf bucket, which counts the same.
    if (counts.empty() && !result.buckets.empty() && std::isinf(result.buckets.back().first))
        result.count = result.buckets.back().second;
    return result;
}

} // namespace

HistogramAggregate Aggregation::histogram(const MetricPage &page, std::string_view family)
{
    return foldHistogram(page, family, Parts::All);
}

HistogramAggregate Aggregation::histogramMean(const MetricPage &page, std::string_view family)
{
    return foldHistogram(page, family, Parts::SumAndCount);
}

std::optional<double> Aggregation::parseBound(std::string_view text)
{
    if (!text.empty() && text.front() == '+')
        text.remove_prefix(1);
    double value = 0;
    const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    if (result.ec != std::errc() || result.ptr != text.data() + text.size())
        return std::nullopt;
    return value;
}

} // namespace opsdeck::metrics
