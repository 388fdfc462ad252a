#pragma once

#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

namespace opsdeck::probes {

/// One number the console shows or records, read or derived from one scrape
/// of one service. Plain data; safe to copy across threads.
struct SeriesValue
{
    /// Stable series key, snake_case, as charted and stored in history:
    /// concept keys of EngineProfile::key ("running", "waiting", "kv_usage",
    /// "kv_usage_max", "prefill_bootstrap_queue", ...), derived keys
    /// ("prompt_tokens_per_s", "generation_tokens_per_s", "ttft_p50_s",
    /// "ttft_p99_s", "bootstrap_failures_per_s", "workers_healthy", ...), and
    /// per-rank keys with the rank label: `running{dp_rank="1"}`.
    QString key;
    /// Unit as shown on an axis: "requests", "tokens/s", "s", "ratio",
    /// "requests/s", "workers".
    QString unit;
    double value = 0;
    /// When the engine last refreshed this value, as best known, ms since the
    /// Unix epoch: the scrape time for live values (/v1/loads, counters), the
    /// page's own timestamp when it gives one, else the time the gauge was
    /// last seen to change (SGLang refreshes its scheduler gauges only every
    /// decode_log_interval decode steps, or every 30 s when idle).
    qint64 sampledAtMs = 0;
    /// Where it came from: the metric family read ("sglang:num_running_reqs"),
    /// or the endpoint ("/v1/loads"); shown in tooltips.
    QString source;
    /// How often the engine refreshes it, in words, when that is not "every
    /// scrape" ("every 40 decode steps, 30 s when idle"); empty for live values.
    QString refresh;
    /// A histogram quantile that fell in the first or last bucket is a bound,
    /// not a measured number: "upper" (the quantile is at most `value`, the
    /// first bucket's edge) or "lower" (above `value`, the largest finite
    /// edge); empty for every other value.
    QString bound;
    /// The histogram's bucket edges in words, for the tooltip ("first bucket
    /// up to 0.1 s, largest finite edge 30 s"); empty when not a quantile.
    QString edges;
};

/// Everything one /metrics scrape of one service yields, after profiles,
/// aggregation, rates and window quantiles.
struct MetricsSnapshot
{
    QString service;   ///< inventory::Service::name
    qint64 timeMs = 0; ///< scrape time, ms since the Unix epoch
    QString profile;   ///< EngineProfile::name of the profile used ("sglang", ...)
    QVector<SeriesValue> values;
    /// Parse and aggregation warnings, "line N: reason" or plain words.
    QStringList warnings;
    /// Empty when the page was read; else why not (HTTP status, timeout, too large).
    QString error;

    /// The value with `key`, or nullptr.
    const SeriesValue *find(const QString &key) const
    {
        for (const SeriesValue &v : values)
            if (v.key == key)
                return &v;
        return nullptr;
    }
};

} // namespace opsdeck::probes

Q_DECLARE_METATYPE(opsdeck::probes::MetricsSnapshot)
