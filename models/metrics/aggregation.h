#pragma once

// Folding the series of one metric into the one value a server shows.
//
// Rules (field case B07: vLLM data parallel; B09: SGLang PD and the router):
// 1. Replicas. Series that differ ONLY in `tp_rank` (and the labels derived
//    from it: `moe_ep_rank`, and `pid`, one process per rank) are tensor-
//    parallel copies of one scheduler's value inside one `dp_rank` group
//    (SGLang exports per TP rank with --enable-metrics-for-all-schedulers).
//    The first series in page order is taken; when a copy disagrees, a
//    warning names the metric and the group. Copies are never added.
// 2. Counts (gauges of requests, counters of tokens or failures) are SUMMED
//    over the remaining series: across `dp_rank`, vLLM `engine`, router
//    `worker_addr`, model. B07: running 7 + 3 = 10; B09 decode 20 + 18 = 38.
// 3. Ratios (KV usage) are AVERAGED over the remaining series, with the
//    maximum beside (the hottest rank). B07: mean 0.6, max 0.8, never 1.2.
// 4. Histograms are summed per bucket bound (`le`, compared as numbers) and
//    their `_sum` and `_count` summed; the mean is sum(_sum) / sum(_count),
//    not a mean of per-engine means. B07: TTFT (20 + 60) / (100 + 100) = 0.4 s,
//    share <= 0.1 s = (50 + 10) / 200 = 0.3.
// 5. Label sets may differ between series (decode has `dp_rank`, prefill not;
//    the router adds `worker_addr`): a series' group is its own label set minus
//    the replica labels, so differing sets never make aggregation fail (B09,
//    smg#805 "Label names should agree").
// NaN samples (an exporter's "no value") are skipped. Values keep the unit of
// the metric (requests, tokens, s, ratio).
//
// Thread-safety: pure functions of their arguments; call from any thread.

#include "metricpage.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opsdeck::metrics {

/// A folded gauge or counter.
struct Aggregate
{
    /// Sum (Fold::Sum), mean (Fold::Ratio) or healthy workers (Fold::Health);
    /// nullopt when no non-NaN series was given.
    std::optional<double> value;
    /// Largest group value (Fold::Ratio); nullopt otherwise or when empty.
    std::optional<double> max;
    /// Series left after replicas were folded (Fold::Health: workers).
    int groups = 0;
    /// Replica disagreements, one per group.
    std::vector<std::string> warnings;
};

/// A folded histogram, in the unit of the metric (s for latencies).
struct HistogramAggregate
{
    bool present = false; ///< any `_sum`, `_count` or `_bucket` series
    bool hasSum = false;  ///< any `_sum` series (pages quoted in issues often lack it)
    double sum = 0;       ///< sum of `_sum`
    double count = 0;     ///< sum of `_count` (observations)
    /// (le, cumulative count) summed per bound, ascending; +Inf last.
    std::vector<std::pair<double, double>> buckets;
    std::vector<std::string> warnings;

    /// sum / count; nullopt when there is no observation or no `_sum` (a mean
    /// of 0 s from a missing sum would look like a fast engine).
    std::optional<double> mean() const;
    /// Observations <= `le` over all observations; nullopt when there is no
    /// bucket with exactly that bound or no observation.
    std::optional<double> shareAtOrBelow(double le) const;
};

class Aggregation
{
public:
    /// The series' group as text, for warnings: its labels without the
    /// replica labels (rule 1), sorted by name, as `a="1",b="2"`; `le` stays.
    /// Folding and matching compare SeriesGroup (seriesgroup.h) instead, the
    /// same identity without building a string per sample.
    static std::string groupKey(const Sample &sample);
    /// A bucket's `le` as a number, "+Inf" included; nullopt when it is not
    /// one. Read with from_chars, not strtod: a bound must not depend on the C locale.
    static std::optional<double> parseBound(std::string_view text);
    /// Rule 1 then rule 2. `what` names the metric in warnings.
    static Aggregate sum(std::span<const Sample *const> samples, std::string_view what);
    /// Rule 1 then rule 3.
    static Aggregate average(std::span<const Sample *const> samples, std::string_view what);
    /// Rule 1, then: value = groups whose value is >= 1 (healthy), groups = all.
    static Aggregate health(std::span<const Sample *const> samples, std::string_view what);
    /// Rule 1 then rule 4 over `family`_bucket, _sum and _count on the page.
    static HistogramAggregate histogram(const MetricPage &page, std::string_view family);
    /// What a mean needs only: _sum and _count, and the buckets only when
    /// there is no _count (their +Inf bucket counts the same). `buckets` is
    /// then empty or partial; replica warnings come from _sum and _count
    /// (copies of one histogram that disagree disagree there too). A third of
    /// the cost of histogram() on an SGLang page, read once a second per service.
    static HistogramAggregate histogramMean(const MetricPage &page, std::string_view family);
};

} // namespace opsdeck::metrics
