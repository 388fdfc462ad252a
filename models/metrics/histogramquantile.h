#pragma once

// Latency quantiles (p50, p95, p99) over the window between two scrapes, from
// the DELTAS of histogram buckets: what happened in the window, not since the
// engine started (a cumulative quantile hardly moves after an hour of traffic).
//
// Equivalent PromQL: histogram_quantile(q, sum by (le) (increase(x_bucket[w])))
// with the window's edges at the two scrapes. Interpolation is Prometheus'
// bucketQuantile (promql/quantile.go), step by step:
// - buckets sorted by bound, same bounds merged; without a +Inf bucket: NaN;
// - counts made monotonic: differences below a relative 1e-12 are floating-
//   point noise and take the previous count; any other fall is lifted to the
//   previous count (ensureMonotonicAndIgnoreSmallDeltas);
// - fewer than 2 buckets, or no observation in the window: NaN;
// - rank = q * observations; the first bucket whose count >= rank holds it;
// - rank in the +Inf bucket: the bound of the bucket below (the largest
//   finite bound), since nothing is known above it;
// - rank in the lowest bucket: interpolated from 0 when its bound is > 0, the
//   bound itself when it is <= 0;
// - else linear inside the bucket: start + (end - start) * (rank - below) /
//   (count - below).
// q < 0 gives -Inf, q > 1 +Inf, NaN q NaN, as Prometheus does.
//
// Deltas per bucket series (replicas folded as Aggregation rule 1, groups
// summed per `le` as rule 4): second value minus first, or the second value
// alone when the histogram series was reset (one of its buckets or its
// `_count` fell, its `_created` changed, or `process_start_time_seconds`
// changed: the same rules as counterrate.h). A bucket series on one page only
// is left out (Prometheus' increase() needs two samples).
//
// Units: the quantiles are in the histogram's unit (s for TTFT, ITL, E2E).
// Thread-safety: stateless; pure functions, call them from any thread.

#include "conceptresolver.h"
#include "engineprofile.h"
#include "metricpage.h"

#include <limits>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace opsdeck::metrics {

/// Where a quantile fell: inside a bucket with two edges (a number worth
/// its interpolation), or in the first or last bucket, where only one edge is
/// known: then the value is that edge and says "below" or "above" it.
enum class QuantileBound
{
    None,  ///< interpolated between two known edges
    Upper, ///< in the first bucket: the quantile is at most the value (its `le`)
    Lower, ///< in the +Inf bucket: the quantile is above the value (the largest finite `le`)
};

/// "upper", "lower" or empty (the CLI's JSON values).
const char *quantileBoundName(QuantileBound bound);

/// The window's quantiles of one histogram concept, in its unit.
struct WindowQuantiles
{
    /// Both pages carry the histogram's buckets.
    bool present = false;
    /// A histogram series was reset in the window.
    bool reset = false;
    /// Observations in the window (the +Inf bucket's delta).
    double observations = 0;
    double p50 = std::numeric_limits<double>::quiet_NaN();
    double p95 = std::numeric_limits<double>::quiet_NaN();
    double p99 = std::numeric_limits<double>::quiet_NaN();
    /// Per quantile: a bound, not an interpolated value (the value is then the edge).
    QuantileBound p50Bound = QuantileBound::None;
    QuantileBound p95Bound = QuantileBound::None;
    QuantileBound p99Bound = QuantileBound::None;
    /// The first bucket's upper edge and the largest finite edge, in the unit;
    /// NaN when unknown. A tooltip's "bucket edges".
    double firstEdge = std::numeric_limits<double>::quiet_NaN();
    double lastFiniteEdge = std::numeric_limits<double>::quiet_NaN();
};

class HistogramQuantile
{
public:
    /// (upper bound `le`, cumulative count); +Inf as infinity.
    using Bucket = std::pair<double, double>;

    /// The concepts that are latency histograms here: TTFT, ITL, E2E.
    static std::span<const Concept> latencyConcepts();

    /// Prometheus' bucketQuantile of `q` over `buckets` (any order). With
    /// `bound`: where the rank fell; in the first bucket the value returned is
    /// that bucket's edge (not Prometheus' interpolation from 0, which looks
    /// exact and is not), in the +Inf bucket the largest finite edge as before.
    static double quantile(double q, std::vector<Bucket> buckets, QuantileBound *bound = nullptr);

    /// Bucket deltas of `family` (without `_bucket`) between the pages,
    /// summed per bound, ascending. `reset` (may be null) is set when any
    /// series was reset.
    static std::vector<Bucket> windowBuckets(const MetricPage &before, const MetricPage &after,
                                             std::string_view family, bool *reset = nullptr);

    /// The window's p50/p95/p99 of a histogram concept, found on each page
    /// with ConceptResolver; not `present` when either page lacks it or the
    /// two pages name it differently.
    static WindowQuantiles forConcept(Concept which, const MetricPage &before,
                                      const MetricPage &after, Profile profile = Profile::Auto);
    /// The same with each page's resolver made once by the caller; each
    /// must be of its page.
    static WindowQuantiles forConcept(Concept which, const MetricPage &before,
                                      const ConceptResolver &beforeNames, const MetricPage &after,
                                      const ConceptResolver &afterNames);
};

} // namespace opsdeck::metrics
