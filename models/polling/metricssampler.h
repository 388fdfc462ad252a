#pragma once

// Turns successive /metrics pages of ONE service into the series the console
// charts (MetricsSnapshot): the engine's gauges, rates from its counters and
// latency quantiles over a sliding window.
//
// Keys and units (MetricsSnapshot::values; a value is left out when the page
// does not carry its concept, never replaced by a made-up 0):
// - running, waiting (requests): summed over dp ranks (aggregation.h), and per
//   rank for the drill-down as `running{dp_rank="N"}`, `waiting{dp_rank="N"}`
//   (tp replicas of one rank folded), only when the series carry `dp_rank`.
// - kv_usage, kv_usage_max (ratio 0..1): mean over ranks / engines, hottest one.
// - prefill_bootstrap_queue, prefill_inflight_queue, decode_prealloc_queue,
//   decode_transfer_queue (requests): PD queues, summed.
// - workers_healthy, workers_total (workers): the router's view of its workers.
// - prompt_tokens_per_s, generation_tokens_per_s (tokens/s),
//   bootstrap_failures_per_s, transfer_failures_per_s (requests/s): from the
//   COUNTERS against the previous page (CounterRate::perConcept: a restart
//   between scrapes is a reset, never a negative rate or a spike); never from
//   the engine's gen_throughput gauge, which holds its last value when idle.
//   None on the first page.
// - ttft_p50_s, ttft_p95_s, ttft_p99_s, itl_p50_s, ..., e2e_p99_s (s): over
//   the window (Settings::windowMs, default 60 s) from bucket deltas between
//   this page and the kept page closest to the window's start
//   (HistogramQuantile::forConcept, Prometheus' histogram_quantile). A window
//   without observations gives no value (NaN is not charted).
//
// Staleness (SeriesValue::sampledAtMs, ms since the Unix epoch):
// - the samples' own timestamp when the page writes one (the newest of them);
// - else, for SGLang's scheduler gauges (running, waiting, kv_usage(_max) and
//   the PD queues, per rank too): the scrape time at which the value was last
//   seen to CHANGE (the first scrape counts; a process restart starts over).
//   SGLang writes these gauges only when it logs its stats: on each prefill
//   batch, every --decode-log-interval decode steps (default 40) and every
//   30 s when idle (scheduler_metrics_mixin.py log_decode_stats, check_memory),
//   so an unchanged value may be that old; `refresh` says so;
// - else (counters, derived values, vLLM and router gauges) the scrape time.
// SeriesValue::source is the family read (PageSummary::sources).
//
// Memory: only reduced pages are kept (the samples of the families the
// concepts use, `process_start_time_seconds` and their `_created` series), at
// least Settings::keepSpacingMs (5 s) apart, and only as far back as the
// window needs: at most windowMs / keepSpacingMs + 2 pages (14 for 60 s), plus
// the previous page for rates. Per-service memory is therefore bounded by
// ~15 reduced pages whatever the page size or the uptime. A reduced page
// holds each name and each distinct label pair once, in 4 KiB blocks (not the
// up-to-64 KiB blocks of a parsed page).
//
// Thread: a plain model object with no threads and no network; use one from
// one thread at a time (the poller's thread).

#include "conceptresolver.h"
#include "engineprofile.h"
#include "metricpage.h"
#include "metricssnapshot.h"

#include <QHash>
#include <QString>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace opsdeck::probes {

class MetricsSampler
{
public:
    struct Settings
    {
        qint64 windowMs = 60'000;     ///< quantile window, ms (the issue's default 1 min)
        qint64 keepSpacingMs = 5'000; ///< minimum spacing of kept pages, ms
        /// SGLang's --decode-log-interval the engines run with (default 40); only
        /// worded into SeriesValue::refresh, the pages do not tell it.
        int decodeLogInterval = 40;
    };

    explicit MetricsSampler(QString service, metrics::Profile profile = metrics::Profile::Auto);
    MetricsSampler(QString service, metrics::Profile profile, Settings settings);

    /// The snapshot of `page`, scraped at `scrapeMs` (ms since the Unix epoch,
    /// increasing from call to call; an older or equal time gives no rate).
    /// A page without any sample gives a snapshot with `error` set ("no metric
    /// families; first bad line N: reason") and is not kept.
    MetricsSnapshot sample(const metrics::MetricPage &page, qint64 scrapeMs);

    /// A snapshot that only says why the page could not be read.
    MetricsSnapshot failed(const QString &error, qint64 scrapeMs) const;

    void setSettings(const Settings &settings);
    const Settings &settings() const { return m_settings; }
    /// Pages held for the window (not counting the previous page).
    std::size_t keptPages() const { return m_kept.size(); }
    /// The bound on keptPages() for `settings` (see the top of this file).
    static std::size_t maxKeptPages(const Settings &settings);

    /// The part of `page` the sampler needs (see Memory above).
    static metrics::MetricPage reduce(const metrics::MetricPage &page);

private:
    struct Kept
    {
        qint64 timeMs = 0;
        metrics::MetricPage page;
        /// Of `page` (set once it is in place; Kept does not move: shared_ptr).
        std::optional<metrics::ConceptResolver> names;
    };
    struct Seen
    {
        double value = 0;
        qint64 sinceMs = 0;
    };

    void addGauges(const Kept &current, MetricsSnapshot &out);
    void addRates(const Kept &current, MetricsSnapshot &out);
    void addQuantiles(const Kept &current, MetricsSnapshot &out);
    /// SeriesValue::source for `family`, converted once per service.
    const QString &familyText(const std::string &family);
    void keep(const std::shared_ptr<const Kept> &current);
    /// Staleness of a gauge (see the top of this file).
    SeriesValue gauge(const QString &key, const QString &unit, double value,
                      const std::string &family, bool schedulerGauge,
                      std::optional<qint64> pageTimeMs, qint64 scrapeMs);

    QString m_service;
    metrics::Profile m_profile;
    Settings m_settings;
    std::shared_ptr<const Kept> m_previous;
    std::deque<std::shared_ptr<const Kept>> m_kept;
    QHash<QString, Seen> m_seen; ///< SGLang gauges: value and when it last changed
    /// SeriesValue::source and ::refresh texts, made once: the same few
    /// families are named in every snapshot of the service.
    std::unordered_map<std::string, QString> m_familyTexts;
    QString m_refreshText;
};

} // namespace opsdeck::probes
