#pragma once

// PromQL for the console's concepts (engineprofile.h), so that a history
// range read from Prometheus means what the live panels mean.
//
// Aggregation follows aggregation.h, in PromQL:
// - series that differ only in `tp_rank` are replicas of one value:
//   `max without (tp_rank) (...)` keeps one (the largest when they disagree);
// - counts (Fold::Sum) are then summed across dp ranks and engines: `sum(...)`;
// - ratios (Fold::Ratio) are averaged: `avg(...)`, with `max(...)` beside
//   (ratioMax());
// - worker health (Fold::Health): `sum(...)` = healthy workers;
// - histograms (Fold::Histogram) are summed per bucket: `sum by (le) (...)`.
// Counters become per-second rates: `sum(rate(x_total[W]))` (Prometheus'
// rate() handles counter resets); latency quantiles are
// `histogram_quantile(q, sum by (le) (rate(x_bucket[W])))`, as the console's
// own window quantiles are (histogramquantile.h).
//
// Which alias: every alias of the concept (for the profile; all of them for
// Profile::Auto) is asked, joined with `or` in order of preference. After
// the outer aggregation each side is one series without labels, so `A or B`
// is A wherever A has a value and B only where A has none — the same "first
// alias present, never added" rule as the page reader, but decided at every
// step. That is why `or` and not one /api/v1/label/__name__/values lookup:
// a range that spans an upgrade (old name before, new name after) reads
// each part from the name it had, in one request, and the label lookup
// would cost a second round trip and a race with the scrape.
//
// The service is chosen by the `instance` label, which Prometheus sets to
// the target as written in its scrape config (host:port). instanceOf() gives
// that from the service URL; a target written with another host spelling
// (localhost vs 127.0.0.1) does not match, and the query answers empty.
//
// Thread: any; no state.

#include "engineprofile.h"

#include <QString>
#include <QUrl>

namespace opsdeck::prometheus {

class PromqlBuilder
{
public:
    /// "host:port" of a service URL (default port of its scheme when absent).
    static QString instanceOf(const QUrl &serviceUrl);
    /// `family{instance="..."}` with the instance quoted as a PromQL string.
    static QString selector(const QString &family, const QString &instance);

    /// The concept's current value as the console folds it: a gauge's sum
    /// (running, waiting, PD queues; requests), average (KV usage; ratio),
    /// healthy workers (worker health); a counter's raw total. Histograms:
    /// the mean over `windowS` (s). Empty when the profile has no alias.
    static QString value(metrics::Concept which, metrics::Profile profile, const QString &instance,
                         int windowS = 60);
    /// The maximum across ranks and engines of a ratio (KV usage), beside value().
    static QString ratioMax(metrics::Concept which, metrics::Profile profile,
                            const QString &instance);
    /// Per-second rate of a counter concept over `windowS` (s), summed:
    /// tokens/s for prompt and generation tokens, requests/s for failures.
    static QString perSecond(metrics::Concept which, metrics::Profile profile,
                             const QString &instance, int windowS = 60);
    /// Quantile `q` (0..1) of a histogram concept over `windowS` (s), in the
    /// histogram's unit (s for TTFT, ITL, E2E, queue time).
    static QString quantile(metrics::Concept which, metrics::Profile profile,
                            const QString &instance, double q, int windowS = 60);
};

} // namespace opsdeck::prometheus
