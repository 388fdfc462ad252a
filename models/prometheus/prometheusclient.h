#pragma once

#include "queryresult.h"

#include <QObject>
#include <QUrl>
#include <memory>

namespace opsdeck::probes {
class ProbeEngine;
struct ProbeResult;
} // namespace opsdeck::probes

namespace opsdeck::prometheus {

/// Asks a Prometheus server through its HTTP API (v1): instant queries
/// (/api/v1/query) and range queries (/api/v1/query_range), so history and
/// comparisons of a fleet Prometheus already scrapes need no second scraper.
///
/// Every request is a GET through the one HTTP client (probes::ProbeEngine,
/// libcurl) bounded like the poller's: the whole answer within `timeoutMs`, at
/// most `maxBytes`; redirects are not followed and proxies from the
/// environment are not used.
/// Every call returns an id and ends with exactly one queryFinished(id, ...)
/// signal, also when the arguments are bad (then queued, never re-entrant).
///
/// Thread: a QObject of the thread that creates it; call it and receive its
/// signal there (answers from the engine's thread are queued to it). Never blocks.
class PrometheusClient : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        int timeoutMs = 10000; ///< whole-request deadline, ms
        /// Largest answer read, bytes. A day at 15 s steps is 5,760 points,
        /// about 200 KB of JSON per series; 32 MiB is ~150 such series.
        qint64 maxBytes = 32 * 1024 * 1024;
    };

    /// `server`: base URL, e.g. http://127.0.0.1:9090 (a path prefix such as
    /// /prometheus is kept; the API paths are appended to it).
    explicit PrometheusClient(const QUrl &server, QObject *parent = nullptr);
    ~PrometheusClient() override;

    void setSettings(const Settings &settings) { m_settings = settings; }
    const Settings &settings() const { return m_settings; }
    /// "host:port" of the server: the name every error text starts with.
    QString serverName() const;

    /// query_range: `promql` evaluated every `stepS` seconds from `fromMs` to
    /// `toMs` (ms since the Unix epoch, inclusive; Prometheus aligns nothing:
    /// points are at fromMs + k*step). Result type "matrix".
    quint64 queryRange(const QString &promql, qint64 fromMs, qint64 toMs, double stepS);
    /// query: `promql` evaluated at `atMs` (ms since the Unix epoch). Result
    /// type "vector" (one point per series) or "scalar".
    quint64 query(const QString &promql, qint64 atMs);

Q_SIGNALS:
    /// The answer to the call that returned `id`. Errors name the server
    /// ("Prometheus at 127.0.0.1:9090: bad_data: ...", "...: no answer within
    /// 10000 ms", "...: answer is not JSON: ...", "...: HTTP 200, then Connection
    /// closed" when the body was cut after the status line).
    void queryFinished(quint64 id, const opsdeck::prometheus::QueryResult &result);

private:
    quint64 get(const QString &apiPath, const QList<QPair<QString, QString>> &parameters);
    void answered(quint64 id, const probes::ProbeResult &result);
    void failLater(quint64 id, const QString &text);

    QUrl m_server;
    Settings m_settings;
    std::unique_ptr<probes::ProbeEngine> m_engine; ///< created on first use
    quint64 m_nextId = 0;
};

} // namespace opsdeck::prometheus
