#pragma once

#include "chatapi.h"
#include "httprequestsettings.h"
#include "probe.h"
#include "probepath.h"

#include <QByteArray>
#include <QString>
#include <chrono>

namespace opsdeck::secrets {
class SecretStore;
}

namespace opsdeck::probes {

/// Builds the ProbeRequests of one probe path (issue 4): its health GET, its
/// /v1/models GET and the tiny chat completion
/// `{"model":M,"messages":[{"role":"user","content":"ping"}],"max_tokens":8}`
/// (with `"stream":true` for ChatStream), each carrying the path's entry
/// settings: API key, CA file, TLS verification, forward proxy (the
/// inventory's `http.proxy`, never the environment) and timeout.
///
/// Holds the API key bytes: never log it; wipe() when done (the destructor
/// does not, copies share the bytes). Thread: plain data, any thread; resolve()
/// blocks (call it on a worker thread, never the GUI thread).
class ProbeRequestFactory
{
public:
    /// Default whole-probe timeout when neither the inventory (`http.timeout_ms`)
    /// nor the caller names one, ms. 10 s: a tiny chat on an idle engine takes
    /// well under a second; ten times that is a hang, not a slow answer.
    static constexpr int kDefaultTimeoutMs = 10'000;
    static constexpr int kTinyChatTokens = ChatApi::kTinyChatTokens;

    ProbeRequestFactory() = default;
    /// The path's request settings (CA file, TLS, proxy, timeout) with `apiKey`
    /// as the entry's key (empty: none), and no problem.
    explicit ProbeRequestFactory(ProbePath path, QByteArray apiKey = {});

    /// Reads the entry's API key through HttpRequestSettings::resolve (blocking,
    /// at most `deadline`). A key that cannot be read gives problem() naming the
    /// service and the key, never an unauthenticated request.
    static ProbeRequestFactory resolve(const ProbePath &path, secrets::SecretStore &store,
                                       std::chrono::milliseconds deadline);
    /// Without a secret store: problem() is set when the path needs an API key.
    static ProbeRequestFactory withoutSecrets(const ProbePath &path);
    /// One factory per path, in order; the shared secret store (the keychain)
    /// is asked only for paths that carry an API key, each at most 10 s.
    /// Blocks like resolve(): call it on a worker thread.
    static QVector<ProbeRequestFactory> forPaths(const QVector<ProbePath> &paths);

    const ProbePath &path() const { return m_path; }
    /// Why this path cannot be probed; empty when it can.
    /// When set, requests are still built but callers should not send them.
    const QString &problem() const { return m_http.problem; }

    /// Timeout of every request, ms: `http.timeout_ms` of the entry when set,
    /// else the one given here (default kDefaultTimeoutMs). Clamped to 1..600000.
    void setDefaultTimeoutMs(int ms) { m_defaultTimeoutMs = ms; }
    /// Overrides the inventory's timeout too (probe rounds bound each probe
    /// themselves); 0 goes back to the rule above.
    void setTimeoutOverrideMs(int ms) { m_overrideTimeoutMs = ms; }
    int timeoutMs() const;

    /// GET of the entry's health URL (`url` + `health_path`).
    ProbeRequest health(ConnectionMode mode) const;
    /// GET `<url><path>` (e.g. "/v1/loads").
    ProbeRequest get(ConnectionMode mode, const QString &path) const;
    /// GET `<url>/v1/models`; read the model with ChatApi::modelFromModels().
    ProbeRequest models(ConnectionMode mode) const;
    /// POST `<url>/v1/chat/completions` with ChatApi::body(model, stream, maxTokens);
    /// kind Chat, or ChatStream when `stream`.
    ProbeRequest chat(ConnectionMode mode, const QString &model, bool stream = false,
                      int maxTokens = kTinyChatTokens) const;

    /// Overwrites the API key's bytes.
    void wipe();

private:
    ProbeRequestFactory(ProbePath path, HttpRequestSettings http);
    ProbeRequest request(ProbeKind kind, ConnectionMode mode, const QUrl &url) const;

    ProbePath m_path;
    /// The entry service's settings as every request of the engine gets them:
    /// its API key (a secret: wiped by wipe()), CA file, TLS, proxy, timeout.
    HttpRequestSettings m_http;
    int m_defaultTimeoutMs = kDefaultTimeoutMs;
    int m_overrideTimeoutMs = 0;
};

} // namespace opsdeck::probes
