// MetricsSampler's gauges (metricssampler.h): the page's values through the
// engine profiles, per-rank keys for the drill-down, and their staleness.
#include "aggregation.h"
#include "conceptresolver.h"
#include "metricssampler.h"
#include "pagesummary.h"

#include <map>
#include <optional>
#include <utility>

namespace opsdeck::probes {

using metrics::Concept;
using metrics::MetricPage;

namespace {

const QString kRequests = QStringLiteral("requests");

std::optional<qint64> newestTimestamp(const std::vector<const metrics::Sample *> &samples)
{
    std::optional<qint64> newest;
    for (const metrics::Sample *s : samples)
        if (s->timestampMs)
            newest = std::max<qint64>(newest.value_or(*s->timestampMs), *s->timestampMs);
    return newest;
}

QString text(const std::string &s)
{
    return QString::fromStdString(s);
}

/// SGLang writes these only when it logs its scheduler stats.
bool isSchedulerGauge(Concept which)
{
    switch (which) {
    case Concept::Running:
    case Concept::Waiting:
    case Concept::KvUsage:
    case Concept::PrefillBootstrapQueue:
    case Concept::PrefillInflightQueue:
    case Concept::DecodePreallocQueue:
    case Concept::DecodeTransferQueue:
        return true;
    default:
        return false;
    }
}

} // namespace

SeriesValue MetricsSampler::gauge(const QString &key, const QString &unit, double value,
                                  const std::string &family, bool schedulerGauge,
                                  std::optional<qint64> pageTimeMs, qint64 scrapeMs)
{
    SeriesValue v{key, unit, value, scrapeMs, familyText(family), QString(), QString(), QString()};
    if (pageTimeMs) {
        v.sampledAtMs = *pageTimeMs;
    } else if (schedulerGauge) {
        auto it = m_seen.find(key);
        if (it == m_seen.end() || it->value != value)
            it = m_seen.insert(key, Seen{value, scrapeMs});
        v.sampledAtMs = it->sinceMs;
        if (m_refreshText.isEmpty())
            m_refreshText = QStringLiteral("every %1 decode steps, 30 s when idle "
                                           "(SGLang --decode-log-interval, default 40; also "
                                           "each prefill batch)")
                                .arg(m_settings.decodeLogInterval);
        v.refresh = m_refreshText;
    }
    return v;
}

void MetricsSampler::addGauges(const Kept &current, MetricsSnapshot &out)
{
    const MetricPage &page = current.page;
    const qint64 scrapeMs = current.timeMs;
    const metrics::ConceptResolver &resolver = *current.names;
    const metrics::PageSummary summary = metrics::summarizePage(page, resolver);
    out.profile = text(std::string(metrics::EngineProfile::name(summary.profile)));
    for (const std::string &w : summary.warnings)
        out.warnings.append(text(w));
    QHash<QString, Seen> touched;
    auto add = [&](Concept which, const QString &key, const QString &unit,
                   const std::optional<double> &value) {
        if (!value)
            return;
        const metrics::Resolution &r = resolver.resolve(which);
        const bool scheduler = isSchedulerGauge(which) && r.profile == metrics::Profile::SGLang;
        out.values.append(
            gauge(key, unit, *value, r.family, scheduler, newestTimestamp(r.samples), scrapeMs));
        if (m_seen.contains(key))
            touched.insert(key, m_seen.value(key));
    };
    add(Concept::Running, QStringLiteral("running"), kRequests, summary.running);
    add(Concept::Waiting, QStringLiteral("waiting"), kRequests, summary.waiting);
    add(Concept::KvUsage, QStringLiteral("kv_usage"), QStringLiteral("ratio"), summary.kvUsage);
    add(Concept::KvUsage, QStringLiteral("kv_usage_max"), QStringLiteral("ratio"),
        summary.kvUsageMax);
    add(Concept::PrefillBootstrapQueue, QStringLiteral("prefill_bootstrap_queue"), kRequests,
        summary.prefillBootstrapQueue);
    add(Concept::PrefillInflightQueue, QStringLiteral("prefill_inflight_queue"), kRequests,
        summary.prefillInflightQueue);
    add(Concept::DecodePreallocQueue, QStringLiteral("decode_prealloc_queue"), kRequests,
        summary.decodePreallocQueue);
    add(Concept::DecodeTransferQueue, QStringLiteral("decode_transfer_queue"), kRequests,
        summary.decodeTransferQueue);
    add(Concept::WorkerHealth, QStringLiteral("workers_healthy"), QStringLiteral("workers"),
        summary.workersHealthy);
    add(Concept::WorkerHealth, QStringLiteral("workers_total"), QStringLiteral("workers"),
        summary.workersTotal);

    // Per-rank drill-down: one value per dp_rank, its tp replicas folded.
    for (const auto &[which, name] :
         {std::pair{Concept::Running, "running"}, std::pair{Concept::Waiting, "waiting"}}) {
        const metrics::Resolution &r = resolver.resolve(which);
        std::map<std::pair<std::size_t, std::string>, std::vector<const metrics::Sample *>> ranks;
        for (const metrics::Sample *s : r.samples) {
            const std::string_view rank = s->label("dp_rank");
            if (!rank.empty())
                ranks[{rank.size(), std::string(rank)}].push_back(s); // numeric order
        }
        for (const auto &[rank, samples] : ranks) {
            const metrics::Aggregate a = metrics::Aggregation::sum(samples, r.family);
            if (!a.value)
                continue;
            const QString key =
                QStringLiteral("%1{dp_rank=\"%2\"}").arg(QLatin1String(name), text(rank.second));
            out.values.append(gauge(key, kRequests, *a.value, r.family,
                                    r.profile == metrics::Profile::SGLang, newestTimestamp(samples),
                                    scrapeMs));
            if (m_seen.contains(key))
                touched.insert(key, m_seen.value(key));
        }
    }
    // A gauge that left the page starts over when it comes back.
    m_seen = touched;
}

} // namespace opsdeck::probes
