#pragma once

#include "endtoendresult.h"
#include "httprequestsettings.h"
#include "inventory.h"
#include "proxynetworks.h"

#include <QElapsedTimer>
#include <QObject>

class QNetworkAccessManager;
class QNetworkReply;
class QTimer;

namespace opsdeck::alerts {

/// Sends a tiny chat completion through a cluster's entry service every
/// interval: `GET /v1/models` once to learn the model name (again after a
/// failure), then `POST /v1/chat/completions` with one user message and
/// `max_tokens: 1`, not streamed. This is the "one end-to-end probe" of
/// DESIGN.md's staged verification, kept small on purpose: issue 4 replaces
/// the transport with the libcurl probe engine behind the same result type.
///
/// Requests carry the entry service's `http:` settings as the poller's do
/// (HttpRequestSettings: `Authorization: Bearer` from the secret store, TLS
/// CA and verification, its proxy, its timeout); a key that cannot be read
/// fails every probe with that reason rather than sending it without.
///
/// Bounds: one probe in flight at a time (a hanging path never piles up),
/// each request aborted after `timeoutMs` (or the entry's `http.timeout`)
/// whole, slow headers included, and bodies over `maxBytes` refused: both
/// requests go through probes::boundedGet()/boundedPost(). A 200 whose body
/// is cut short (probes::replyCut()) is a failure. No proxy from the
/// environment. Redirects are not followed.
///
/// Thread: a worker object; create it, move it to a worker thread and call
/// start() there (queued); the network manager is created in that thread.
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
    void modelsAnswered(QNetworkReply *reply);
    void postChat();
    void chatAnswered(QNetworkReply *reply);
    void finish(EndToEndResult result);

    QString m_cluster;
    inventory::Service m_entry;
    Settings m_settings;
    probes::HttpRequestSettings m_http; ///< resolved in start(), on the probe's thread
    probes::ProxyNetworks m_networks{this};
    QNetworkAccessManager *m_network = nullptr;
    QTimer *m_timer = nullptr;
    bool m_inFlight = false;
    QString m_model; ///< learned from /v1/models; empty until then
    QElapsedTimer m_chatClock;
};

} // namespace opsdeck::alerts
