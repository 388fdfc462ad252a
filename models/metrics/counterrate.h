#pragma once

// Per-second rates of counters from two scrapes of one page, with reset
// detection: the "Derived series" the console charts (tokens/s, failures/s).
//
// Units: every rate is in the counter's unit per SECOND (tokens/s, requests/s).
// Scrape times are Unix seconds (a double, so sub-second scrape times keep
// their precision); `_created` and `process_start_time_seconds` are Unix
// seconds too, as the exporters write them.
//
// Rules, after Prometheus' rate() (promql/functions.go, extrapolatedRate) over a
// window whose edges are the two scrapes, so no extrapolation applies:
// - increase = v2 - v1, rate = increase / (t2 - t1).
// - A reset between the scrapes is any of:
//   a) a fall in value (Prometheus' only reset rule: "any decrease in value");
//   b) a changed `process_start_time_seconds` (the newest one on each page:
//      any restarted process raises it), which catches a restart that climbed
//      back above v1 before the second scrape (a fall alone misses it);
//   c) a changed creation time of the series (`X_created`, read through
//      Family::createdOf / Sample::isCreated, matched on the label set).
// - After a reset the counter counted from 0, so the increase is v2 (as
//   Prometheus counts it), never v2 - v1 (negative) and never a spike. Its
//   time base:
//   * the counter's creation time when the second page gives one and it is
//     before t2: rate = v2 / (t2 - created). This is exactly the time over
//     which v2 was counted (Prometheus' created-timestamp zero injection,
//     `--enable-feature=created-timestamp-zero-ingestion`, inserts a 0 at the
//     creation time for the same reason); dividing by the whole interval
//     would understate the throughput of a process that restarted mid-window;
//   * otherwise v2 / (t2 - t1): the only base the pages give. It understates
//     the rate (the process was not up all the window), which is the safe
//     side for an on-call chart: no invented spike.
//   The process start time is NOT used as a creation time: a counter may be
//   registered after its process starts, and guessing would overstate.
// - A series on only one page has no rate (Prometheus needs two samples), and
//   NaN values give none either.
//
// Per concept (PromptTokens, GenerationTokens, failures, prefix cache): the
// family is found on each page with ConceptResolver, replicas folded as
// Aggregation rule 1 (first series of each SeriesGroup), the rate
// taken per group and the group rates summed (Aggregation rule 2; as PromQL
// `sum(rate(x[w]))`, never `rate(sum(x))`, so one rank restarting does not
// cancel another's increase). Throughput in tokens/s therefore comes from the
// token counters, never from a gen_throughput gauge. When the two pages name
// the concept differently (an upgrade renamed it), every group is a reset.
//
// Thread-safety: stateless; pure functions of their arguments, call them from
// any thread. Pages must not change during a call.

#include "conceptresolver.h"
#include "engineprofile.h"
#include "metricpage.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace opsdeck::metrics {

/// One rate between two scrapes.
struct Rate
{
    /// Per second; nullopt when either page lacks the series (or concept).
    std::optional<double> perSecond;
    /// A reset (restart) happened between the scrapes.
    bool reset = false;
    /// After a reset: the creation time, not the interval, was the time base.
    bool fromCreated = false;
};

/// One page and when it was scraped.
struct Scrape
{
    const MetricPage &page;
    double timeS = 0; ///< Unix seconds
};

/// A rate of one series.
struct SeriesRate
{
    /// Full text `name{a="1",b="2"}` (labels in the second page's order,
    /// escaped as on a page); `name` alone when it has no labels.
    std::string series;
    Rate rate;
};

class CounterRate
{
public:
    /// The concepts that are counters, in Concept order.
    static std::span<const Concept> counterConcepts();

    /// The rate's name: EngineProfile::key without `_total` ("generation_tokens"
    /// for generation_tokens_total), as Prometheus names a rate after the
    /// counter without its suffix; a per-second value is not a total.
    static std::string key(Concept which);

    /// The rate of one counter from its two values. `reset` forces a reset
    /// (rules b, c); a fall sets it too. `createdS`: creation time on the
    /// second page, if any. Requires t2 > t1; NaN values give nullopt.
    static Rate between(double v1, double t1, double v2, double t2, bool reset,
                        std::optional<double> createdS = std::nullopt);

    /// Rule b: both pages carry `process_start_time_seconds` and its newest
    /// value differs.
    static bool processRestarted(const MetricPage &before, const MetricPage &after);

    /// The creation time of `sample`'s series on `page`: the `_created` sample
    /// of the same stem (name without `_total`, `_bucket`, `_count`, `_sum`)
    /// and the same labels (without `le`); nullopt when the page has none.
    static std::optional<double> createdTime(const MetricPage &page, const Sample &sample);

    /// `name{labels}` as documented on SeriesRate::series.
    static std::string seriesText(const Sample &sample);
    /// Name plus the label set, order-insensitive: matches a series across pages.
    static std::string seriesIdentity(const Sample &sample);

    /// Every counter series present on both pages (families typed counter, and
    /// untyped `_total` ones; never `_created`), in the second page's order.
    static std::vector<SeriesRate> perSeries(const Scrape &before, const Scrape &after);

    /// The summed rate of a counter concept (see the top of this file).
    static Rate perConcept(Concept which, const Scrape &before, const Scrape &after,
                           Profile profile = Profile::Auto);
    /// The same with each page's resolver made once by the caller (one per
    /// page instead of two per concept); each must be of its scrape's page.
    static Rate perConcept(Concept which, const Scrape &before, const ConceptResolver &beforeNames,
                           const Scrape &after, const ConceptResolver &afterNames);
};

} // namespace opsdeck::metrics
