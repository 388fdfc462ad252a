#pragma once

#include "inventory.h"
#include "rangeresult.h"

#include <QHash>
#include <QObject>
#include <QUrl>
#include <memory>
#include <vector>

class QThread;

namespace opsdeck::prometheus {
class PrometheusClient;
struct QueryResult;
} // namespace opsdeck::prometheus

namespace opsdeck::history {

/// Reads a past time range of the console's series for the charts, from
/// where it is kept:
/// - from Prometheus' query_range when the inventory names `prometheus:`
///   (PromqlBuilder's queries, so each series means what the live panel
///   means; the service is its metrics URL's host:port, the `instance`
///   Prometheus gives the target), one request per series and service,
///   at a step that gives ~720 points (1 h: 5 s, 24 h: 120 s);
/// - else from the history database (HistoryStore::points: raw samples
///   where kept, 1-minute rollups before), read on a thread of its own.
/// Every series is cut to at most maxPointsPerSeries (each bucket's min and
/// max in time order, so peaks survive), so a day at 1 s never reaches the
/// GUI whole. Series keys are those the poller records (HistoryRecorder);
/// from Prometheus, decode and engine services' "live_running" and
/// "live_waiting" repeat "running" and "waiting" (Prometheus has no
/// /v1/loads).
///
/// Every load() ends with exactly one loaded() (queued); a newer load()
/// makes the older one's answer be dropped. Errors name the server
/// ("Prometheus at 127.0.0.1:9090: no answer within 10000 ms") or the file.
/// Thread: create and use on one thread (the GUI thread); never blocks it.
class HistoryRangeLoader : public QObject
{
    Q_OBJECT
public:
    static constexpr int maxPointsPerSeries = 2000;

    explicit HistoryRangeLoader(QObject *parent = nullptr);
    ~HistoryRangeLoader() override;

    /// What to read and from where: `databasePath` (history.sqlite) is used
    /// when `inventory.prometheus` is empty.
    void setSources(const inventory::Inventory &inventory, const QString &databasePath);
    bool usesPrometheus() const { return !m_prometheus.isEmpty(); }
    /// "Prometheus at host:port", or the database path.
    QString sourceName() const;

    /// Reads [fromMs, toMs] (ms since the Unix epoch). Returns the load's id.
    quint64 load(qint64 fromMs, qint64 toMs);

    /// Keeps each bucket's min and max (time order) so that at most
    /// `maxPoints` remain; fewer points are returned as given.
    static QVector<Sample> reduce(const QVector<Sample> &points, int maxPoints);

Q_SIGNALS:
    void loaded(const opsdeck::history::RangeResult &result);

private:
    struct Pending;
    void loadFromStore(quint64 id, qint64 fromMs, qint64 toMs);
    void loadFromPrometheus(quint64 id, qint64 fromMs, qint64 toMs);
    void answered(quint64 queryId, const prometheus::QueryResult &answer);
    void finish(RangeResult result);

    QVector<inventory::Service> m_services;
    QUrl m_prometheus;
    QString m_databasePath;
    prometheus::PrometheusClient *m_client = nullptr;
    quint64 m_nextId = 0;
    quint64 m_current = 0;
    std::unique_ptr<Pending> m_pending;    ///< the Prometheus load in flight
    std::vector<QThread *> m_storeThreads; ///< store reads still running; joined on destruction
};

} // namespace opsdeck::history
