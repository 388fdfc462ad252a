#pragma once

#include "endtoendresult.h"
#include "httprequestsettings.h"
#include "inventory.h"

#include <QObject>
#include <memory>

class QTimer;

namespace opsdeck::probes {
class ProbeEngine;
}

namespace opsdeck::alerts {

/// Sends a tiny chat completion through a cluster's entry service every
/// interval: `GET /v1/models` once to learn the model name (again after a
/// failure), then `POST /v1/chat/completions` with one user message and
/// `max_tokens: 1`, not streamed (probes::ChatApi). This is the "one
/// end-to-end probe" of DESIGN.md's staged verification, sent through the one
/// HTTP client (probes::ProbeEngine, libcurl) on a new connection each time.
///
/// Requests carry the entry service's `http:` settings as the poller's do
/// (HttpRequestSettings: `Authorization: Bearer` from the secret store, TLS
/// CA and verification, its proxy, its timeout); a key that cannot be read
/// fails every probe with that reason rather than sending it without.
///
/// Bounds: one probe in flight at a time (a hanging path never piles up),
/// each request aborted after `timeoutMs` (or the entry's `http.timeout`)
/// whole, slow headers included, and bodies over `maxBytes` refused
/// (probes::transferProblem() words). A 200 whose body is cut short is a
/// failure. No proxy from the environment. Redirects are not followed.
///
/// Thread: a worker object; create it, move it to a worker thread and call
/// start() there (queued); the engine's answers are queued to that thread.
class EndToEndProbe : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        int intervalMs = 30'000;     ///< between probe starts, ms; 0 = only probeNow()
        int timeoutMs = 10'000;      ///< bound of each request, ms
        qint64 maxBytes = 64 * 1024; ///< a one-token answer is a few hundred bytes
        /// After a failed probe the next comes after min(retryMs, intervalMs), ms,
        /// so that a real failure is confirmed (AlertEvaluator wants two) within seconds.
        int retryMs = 5'000;
    };

    EndToEndProbe(QString cluster, inventory::Service entry, Settings settings,
                  QObject *parent = nullptr);
    ~EndToEndProbe() override;

    bool inFlight() const { return m_inFlight; }

public Q_SLOTS:
    /// Probes now, then every intervalMs.
    void start();
    void stop();
    /// Starts one probe unless one is in flight.
    void probeNow();

Q_SIGNALS:
    void probeFinished(const opsdeck::alerts::EndToEndResult &result);

private:
    QUrl endpoint(const QString &path) const;
    void send(probes::ProbeRequest request,
              void (EndToEndProbe::*answered)(const probes::ProbeResult &));
    void modelsAnswered(const probes::ProbeResult &answer);
    void postChat();
    void chatAnswered(const probes::ProbeResult &answer);
    /// Why `answer` is not a whole HTTP 200, in words; empty when it is.
    QString problemOf(const probes::ProbeResult &answer) const;
    void finish(EndToEndResult result);

    QString m_cluster;
    inventory::Service m_entry;
    Settings m_settings;
    probes::HttpRequestSettings m_http;            ///< resolved in start(), on the probe's thread
    std::unique_ptr<probes::ProbeEngine> m_engine; ///< created in start()
    QTimer *m_timer = nullptr;
    bool m_inFlight = false;
    QString m_model; ///< learned from /v1/models; empty until then
};

} // namespace opsdeck::alerts
