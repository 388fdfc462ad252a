#pragma once

#include "inventory.h"
#include "probe.h"

#include <QByteArray>
#include <QList>
#include <QSslCertificate>
#include <QString>
#include <QUrl>
#include <chrono>

namespace opsdeck::secrets {
class SecretStore;
}

namespace opsdeck::probes {

/// One service's inventory HttpSettings made ready for boundedGet(): the API
/// key read from the secret store, the CA file loaded. When something cannot
/// be used (a key missing from the store, an unreadable CA file) `problem`
/// says so and every request to the service fails with that text, rather than
/// going out without its key or with weaker trust.
///
/// Holds the API key itself: never log it; wipe() it when the settings are
/// replaced. Thread: plain data, used on the thread of the requests.
struct HttpRequestSettings
{
    QString service;   ///< the service's name, for error texts
    QByteArray apiKey; ///< sent as `Authorization: Bearer <key>`; empty: no header
    /// Trusted CAs for https (from `ca_file`); empty: the system roots.
    QList<QSslCertificate> caCertificates;
    QString caFile; ///< the PEM file they came from (`ca_file`), for libcurl; empty: system roots
    bool verifyTls = true; ///< false: no certificate or host-name checks (inventory opt-out)
    int timeoutMs = 0;     ///< whole-request timeout, ms; 0: the caller's default
    QUrl proxy;            ///< http://HOST:PORT forward proxy; empty: direct
    QString problem;       ///< why requests to this service cannot be made; empty when they can

    /// Resolves `service.http`. Reads the API key through `store` with a
    /// blocking call (a local event loop of at most `deadline`): call it on a
    /// worker thread. A missing key gives the problem
    /// "service decode-0: API key http/decode-0/api-key is not in the secret store".
    static HttpRequestSettings resolve(const inventory::Service &service,
                                       secrets::SecretStore &store,
                                       std::chrono::milliseconds deadline);
    /// Settings needing no secret store (no API key configured); `problem`
    /// set when one is configured.
    static HttpRequestSettings withoutSecrets(const inventory::Service &service);

    /// A request to `url` with these settings applied — the one place they
    /// are: the API key, the CA file, TLS verification, the proxy, the
    /// timeout (`timeoutMs`, else `defaultTimeoutMs`) — and `maxBytes`.
    /// Do not send it when `problem` is set.
    ProbeRequest request(const QUrl &url, int defaultTimeoutMs, qint64 maxBytes) const;
    /// The timeout request() uses, ms.
    int effectiveTimeoutMs(int defaultTimeoutMs) const
    {
        return timeoutMs > 0 ? timeoutMs : defaultTimeoutMs;
    }
    /// Overwrites the key's bytes and empties it.
    void wipe();
};

} // namespace opsdeck::probes
