#include "historyrangeloader.h"

#include "historystore.h"
#include "prometheusclient.h"
#include "promqlbuilder.h"

#include <QThread>
#include <algorithm>
#include <cmath>

namespace opsdeck::history {

using metrics::Concept;
using metrics::Profile;
using prometheus::PromqlBuilder;

namespace {

struct Query
{
    QString key;
    QString unit;
    QString promql;
};

// The series the panels draw, asked as PromqlBuilder words them.
QVector<Query> queriesFor(const inventory::Service &service, int windowS)
{
    const QString inst = PromqlBuilder::instanceOf(service.metricsUrl());
    const Profile p = Profile::Auto;
    const QString requests = QStringLiteral("requests");
    QVector<Query> out{
        {QStringLiteral("running"), requests, PromqlBuilder::value(Concept::Running, p, inst)},
        {QStringLiteral("waiting"), requests, PromqlBuilder::value(Concept::Waiting, p, inst)},
        {QStringLiteral("kv_usage"), QStringLiteral("ratio"),
         PromqlBuilder::value(Concept::KvUsage, p, inst)},
        {QStringLiteral("kv_usage_max"), QStringLiteral("ratio"),
         PromqlBuilder::ratioMax(Concept::KvUsage, p, inst)},
        {QStringLiteral("prefill_bootstrap_queue"), requests,
         PromqlBuilder::value(Concept::PrefillBootstrapQueue, p, inst)},
        {QStringLiteral("prefill_inflight_queue"), requests,
         PromqlBuilder::value(Concept::PrefillInflightQueue, p, inst)},
        {QStringLiteral("decode_prealloc_queue"), requests,
         PromqlBuilder::value(Concept::DecodePreallocQueue, p, inst)},
        {QStringLiteral("decode_transfer_queue"), requests,
         PromqlBuilder::value(Concept::DecodeTransferQueue, p, inst)},
        {QStringLiteral("workers_healthy"), QStringLiteral("workers"),
         PromqlBuilder::value(Concept::WorkerHealth, p, inst)},
        {QStringLiteral("prompt_tokens_per_s"), QStringLiteral("tokens/s"),
         PromqlBuilder::perSecond(Concept::PromptTokens, p, inst, windowS)},
        {QStringLiteral("generation_tokens_per_s"), QStringLiteral("tokens/s"),
         PromqlBuilder::perSecond(Concept::GenerationTokens, p, inst, windowS)},
        {QStringLiteral("bootstrap_failures_per_s"), QStringLiteral("requests/s"),
         PromqlBuilder::perSecond(Concept::BootstrapFailures, p, inst, windowS)},
        {QStringLiteral("transfer_failures_per_s"), QStringLiteral("requests/s"),
         PromqlBuilder::perSecond(Concept::TransferFailures, p, inst, windowS)},
    };
    for (const auto &[which, prefix] :
         {std::pair{Concept::Ttft, "ttft"}, std::pair{Concept::Itl, "itl"},
          std::pair{Concept::E2e, "e2e"}})
        for (const auto &[q, name] :
             {std::pair{0.5, "p50"}, std::pair{0.95, "p95"}, std::pair{0.99, "p99"}})
            out.append({QStringLiteral("%1_%2_s").arg(QLatin1String(prefix), QLatin1String(name)),
                        QStringLiteral("s"), PromqlBuilder::quantile(which, p, inst, q, windowS)});
    return out;
}

bool isDecodeLike(const inventory::Service &service)
{
    return service.role == inventory::Role::Decode || service.role == inventory::Role::Engine;
}

} // namespace

struct HistoryRangeLoader::Pending
{
    RangeResult result;
    QHash<quint64, std::pair<SeriesKey, QString>> queries; ///< query id -> series, unit
    QHash<QString, bool> decodeLike;                       ///< service -> repeats live_*
};

HistoryRangeLoader::HistoryRangeLoader(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<RangeResult>();
}

HistoryRangeLoader::~HistoryRangeLoader()
{
    for (QThread *thread : m_storeThreads) {
        thread->wait();
        delete thread;
    }
}

void HistoryRangeLoader::setSources(const inventory::Inventory &inventory,
                                    const QString &databasePath)
{
    m_services = inventory.services;
    m_databasePath = databasePath;
    if (m_prometheus != inventory.prometheus) {
        m_prometheus = inventory.prometheus;
        delete m_client;
        m_client = nullptr;
        if (!m_prometheus.isEmpty()) {
            m_client = new prometheus::PrometheusClient(m_prometheus, this);
            connect(m_client, &prometheus::PrometheusClient::queryFinished, this,
                    &HistoryRangeLoader::answered);
        }
    }
}

QString HistoryRangeLoader::sourceName() const
{
    return m_client ? QStringLiteral("Prometheus at %1").arg(m_client->serverName())
                    : m_databasePath;
}

quint64 HistoryRangeLoader::load(qint64 fromMs, qint64 toMs)
{
    const quint64 id = ++m_nextId;
    m_current = id;
    m_pending.reset();
    if (m_client)
        loadFromPrometheus(id, fromMs, toMs);
    else
        loadFromStore(id, fromMs, toMs);
    return id;
}

QVector<Sample> HistoryRangeLoader::reduce(const QVector<Sample> &points, int maxPoints)
{
    if (points.size() <= maxPoints || maxPoints < 2)
        return points;
    const qsizetype buckets = maxPoints / 2;
    QVector<Sample> out;
    out.reserve(maxPoints);
    for (qsizetype b = 0; b < buckets; ++b) {
        const qsizetype begin = b * points.size() / buckets;
        const qsizetype end = (b + 1) * points.size() / buckets;
        if (begin >= end)
            continue;
        const auto [lo, hi] =
            std::minmax_element(points.begin() + begin, points.begin() + end,
                                [](const Sample &a, const Sample &b) { return a.value < b.value; });
        out.append(lo < hi ? *lo : *hi);
        if (lo != hi)
            out.append(lo < hi ? *hi : *lo);
    }
    return out;
}

void HistoryRangeLoader::loadFromStore(quint64 id, qint64 fromMs, qint64 toMs)
{
    QStringList names;
    for (const auto &service : m_services)
        names << service.name;
    const QString path = m_databasePath;
    // Its own connection on its own thread: SQLite reads of a day of samples
    // must not hold the GUI thread.
    QThread *thread = QThread::create([this, id, fromMs, toMs, names, path] {
        RangeResult result{id, fromMs, toMs, true, path, {}, {}};
        {
            HistoryStore store(path);
            if (!store.open()) {
                result.ok = false;
                result.error = store.lastError();
            } else {
                for (const SeriesInfo &info : store.seriesList()) {
                    if (!names.contains(info.service))
                        continue;
                    QVector<Sample> samples;
                    for (const HistoryPoint &p : store.points(info.service, info.key, fromMs, toMs))
                        samples.append({p.timeMs, p.value});
                    if (!samples.isEmpty())
                        result.series.append({{info.service, info.key},
                                              info.unit,
                                              reduce(samples, maxPointsPerSeries)});
                }
            }
        }
        // The loader outlives this thread (its destructor joins it); an event
        // still queued when it is deleted is discarded with it.
        QMetaObject::invokeMethod(
            this, [this, result] { finish(result); }, Qt::QueuedConnection);
    });
    thread->setObjectName(QStringLiteral("history-range"));
    m_storeThreads.push_back(thread);
    thread->start();
    // Joined threads are deleted at the next load; at most a few are alive.
    std::erase_if(m_storeThreads, [](QThread *t) {
        if (!t->isFinished())
            return false;
        t->wait();
        delete t;
        return true;
    });
}

void HistoryRangeLoader::loadFromPrometheus(quint64 id, qint64 fromMs, qint64 toMs)
{
    m_pending = std::make_unique<Pending>();
    m_pending->result = RangeResult{id, fromMs, toMs, true, sourceName(), {}, {}};
    // ~720 points whatever the span; the rate window covers a few steps and
    // at least four 15 s scrapes.
    const double stepS = std::max(1.0, std::ceil(double(toMs - fromMs) / 1000.0 / 720.0));
    const int windowS = std::max(60, static_cast<int>(4 * stepS));
    for (const auto &service : m_services) {
        if (!service.hasMetrics())
            continue;
        m_pending->decodeLike.insert(service.name, isDecodeLike(service));
        for (const Query &query : queriesFor(service, windowS)) {
            if (query.promql.isEmpty())
                continue;
            const quint64 q = m_client->queryRange(query.promql, fromMs, toMs, stepS);
            m_pending->queries.insert(q, {SeriesKey{service.name, query.key}, query.unit});
        }
    }
    if (m_pending->queries.isEmpty())
        finish(std::exchange(m_pending, nullptr)->result);
}

void HistoryRangeLoader::answered(quint64 queryId, const prometheus::QueryResult &answer)
{
    if (!m_pending || !m_pending->queries.contains(queryId))
        return; // a superseded load
    const auto [series, unit] = m_pending->queries.take(queryId);
    RangeResult &result = m_pending->result;
    if (!answer.ok) {
        if (result.ok)
            result.error = answer.error;
        result.ok = false;
    } else if (!answer.series.isEmpty()) {
        QVector<Sample> samples;
        for (const auto &point : answer.series.first().points)
            samples.append({point.timeMs, point.value});
        samples = reduce(samples, maxPointsPerSeries);
        result.series.append({series, unit, samples});
        if (m_pending->decodeLike.value(series.service) &&
            (series.key == u"running" || series.key == u"waiting"))
            result.series.append(
                {{series.service, QStringLiteral("live_") + series.key}, unit, samples});
    }
    if (m_pending->queries.isEmpty())
        finish(std::exchange(m_pending, nullptr)->result);
}

void HistoryRangeLoader::finish(RangeResult result)
{
    if (result.id == m_current)
        Q_EMIT loaded(result);
}

} // namespace opsdeck::history
