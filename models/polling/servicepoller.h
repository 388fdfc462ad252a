#pragma once

#include "httprequestsettings.h"
#include "loadsample.h"
#include "metricssnapshot.h"
#include "pollanswers.h"
#include "servicestatus.h"

#include <QHash>
#include <QObject>
#include <QVector>
#include <memory>

class QTimer;

namespace opsdeck::secrets {
class SecretStore;
}

namespace opsdeck::probes {

class ProbeEngine;
struct ProbeResult;

/// Polls every service's health URL once per interval, every service's
/// /metrics page (read by its own MetricsSampler into a MetricsSnapshot: gauges,
/// counter rates, window quantiles, with their staleness), and the decode
/// services' batch size (/v1/loads, else /metrics summed over dp ranks: the
/// live batch size prefers /v1/loads, whose values SGLang does not cache).
/// Requests go through libcurl (a ProbeEngine: one multi handle on a thread
/// of its own), not Qt Network: with 64 engines polled three times a second,
/// Qt's HTTP thread and its cross-thread reply signals were most of the
/// console's CPU (bench: run_poll_bench.sh).
/// A proxy's or router's health check goes each time on a fresh connection
/// (closed after the answer, never reused), so one that stalls
/// kept-alive connections does not look down; an engine's (prefill, decode,
/// engine) reuses the kept-alive connections of /metrics and /v1/loads, as
/// its router's requests do — a new TCP connection per engine per second was
/// most of the HTTP thread's cost with 64 engines.
///
/// Thread: a worker object. Move it to its own thread (PollerThread does)
/// and call its slots through queued connections; it emits compact results
/// (one ServiceStatus per check, one LoadSample per decode poll, one
/// MetricsSnapshot per /metrics scrape), never whole pages; pages are parsed
/// and sampled on the poller's thread. Each batch of answers taken from the
/// engine's thread is also emitted as one PollAnswers (answered), for
/// receivers on other threads. A check still in flight is not started
/// again (no pile-up when a service hangs); results of a superseded service
/// list are dropped.
class ServicePoller : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        int intervalMs = 1000;                  ///< between checks of one service, ms
        int timeoutMs = 2000;                   ///< whole-request timeout, ms (slow headers count)
        qint64 maxPageBytes = 16 * 1024 * 1024; ///< /metrics pages larger than this are refused
        bool pollDecodeLoad = true; ///< also read decode services' running/waiting requests
        bool logTransitions =
            true; ///< log state changes (the console's poller; not one-off checks)
        /// Also scrape every service's /metrics and emit metricsSampled.
        bool pollMetrics = true;
        /// Window of the TTFT / ITL / E2E quantiles, ms (MetricsSampler; the 1 min).
        qint64 quantileWindowMs = 60'000;
    };

    explicit ServicePoller(QObject *parent = nullptr);
    ~ServicePoller() override;

public Q_SLOTS:
    /// Replaces the watched services (any thread, via a queued call).
    /// Decode services (role decode or engine) also have their load polled.
    /// Each service's `http:` settings apply to its requests; API keys are read
    /// from the secret store here, once per call (a local event loop on the
    /// poller's thread, at most 10 s, while SecretStore::shared() reads them on
    /// the main thread). A key that cannot be read makes every check of that
    /// service fail with the reason (never sent without it).
    void setServices(const QVector<opsdeck::inventory::Service> &services);
    void setSettings(const opsdeck::probes::ServicePoller::Settings &settings);
    void start();
    void stop();
    /// Runs one round now (health of every service and decode load).
    void pollNow();

Q_SIGNALS:
    void statusChecked(const opsdeck::probes::ServiceStatus &status);
    void loadSampled(const opsdeck::probes::LoadSample &sample);
    /// A decode service's load could not be read (bad page, no gauge...).
    void loadFailed(const QString &service, const QString &reason);
    /// One /metrics scrape of one service; `error` set (naming the service and
    /// why: HTTP status, timeout, too large, no metric families) when the page
    /// could not be read. Stale results of a replaced service list are dropped.
    void metricsSampled(const opsdeck::probes::MetricsSnapshot &snapshot);
    /// The results of one batch of answers, emitted after their one-by-one
    /// signals above: connect a receiver on another thread here, not to those
    /// (one queued call per batch; the GUI and alert threads take a second's
    /// results in a few calls). Never empty.
    void answered(const opsdeck::probes::PollAnswers &answers);

private:
    struct Watched;
    using Answered = void (ServicePoller::*)(Watched &watched, const ProbeResult &result);
    void checkHealth(Watched &watched);
    void pollLoad(Watched &watched);
    void healthAnswered(Watched &watched, const ProbeResult &result);
    void loadAnswered(Watched &watched, const ProbeResult &result);
    void scrapeMetrics(Watched &watched);
    void metricsAnswered(Watched &watched, const ProbeResult &result);
    /// GETs `url` for `owner` with its `http:` settings; `answered` runs on
    /// the poller's thread with the result, unless the service list changed
    /// meanwhile. `freshConnection`: on a connection of its own, closed after.
    void get(const Watched &owner, const QUrl &url, qint64 maxBytes, Answered answered,
             bool freshConnection = false);
    /// Why `result` is no usable answer, in the operator's words ("no answer
    /// within 2000 ms", "body larger than N bytes", "Connection refused",
    /// "service S: TLS verification failed: ...", "HTTP 200, then ..."); empty when it answered.
    /// `maxBytes`: the limit the request had.
    /// The detail of an unresponsive service: the wait, and for a proxy or
    /// router that the answer is upstream's.
    static QString unresponsiveDetail(const inventory::Service &service, const QString &problem);
    QString problemOf(const Watched &owner, const ProbeResult &result, qint64 maxBytes) const;
    QHash<QString, HttpRequestSettings> resolveHttp(const QVector<inventory::Service> &services);
    Watched *find(quint64 generation, const QString &name) const;
    /// Runs the answers the engine's thread left in m_mailbox (poller's thread).
    void takeAnswers();

    Settings m_settings;
    /// Answers on their way from the engine's thread (see get()); shared with
    /// the engine's callbacks.
    struct Mailbox;
    std::shared_ptr<Mailbox> m_mailbox;
    PollAnswers m_answers;                 // results of the batch takeAnswers() is running
    std::unique_ptr<ProbeEngine> m_engine; // made by start(), on the poller's thread
    QTimer *m_timer = nullptr;
    quint64 m_generation = 0;
    QVector<Watched *> m_watched;
    // Per service name: its resolved `http:` settings (API key included).
    QHash<QString, HttpRequestSettings> m_http;
    secrets::SecretStore *m_secrets = nullptr; // SecretStore::shared(), taken on first need
    quint64 m_servicesCall = 0; // a newer setServices() wins over one still looking up keys
};

} // namespace opsdeck::probes

Q_DECLARE_METATYPE(opsdeck::probes::ServicePoller::Settings)
