#pragma once

#include "probeengine.h"
#include "ssettftreader.h"

#include <chrono>
#include <curl/curl.h>

namespace opsdeck::probes {

/// One probe's libcurl easy handle: its options (connection mode, proxy
/// only from the request, TLS, API key, timeout, body cap), the answer as it
/// arrives (body up to maxBytes, TTFT from the SSE events) and, once curl is
/// done, the ProbeResult read from curl's own counters (CURLINFO_*).
///
/// Thread: the probe engine's thread (constructed anywhere, used there).
class CurlTransfer
{
public:
    using Clock = std::chrono::steady_clock;

    CurlTransfer(quint64 id, ProbeRequest request, ProbeEngine::Callback onDone);
    ~CurlTransfer();
    CurlTransfer(const CurlTransfer &) = delete;
    CurlTransfer &operator=(const CurlTransfer &) = delete;

    /// Creates and configures the easy handle. `maxIdleS`: curl keeps idle
    /// connections at least this long (CURLOPT_MAXAGE_CONN). False with the
    /// reason in `error` when curl refused an option.
    bool setUp(double maxIdleS, QString &error);
    /// Call right before curl_multi_add_handle: start of TTFT and startedAtMs.
    void markStarted();

    /// The result after curl reported `code` for this transfer.
    ProbeResult finish(CURLcode code);
    /// The result of a probe cancelled before or while it ran.
    ProbeResult cancelledResult() const;

    quint64 id() const { return m_id; }
    CURL *handle() const { return m_easy; }
    const ProbeRequest &request() const { return m_request; }
    ProbeEngine::Callback &onDone() { return m_onDone; }
    /// scheme://host:port plus the proxy: the key of a kept-alive connection.
    QString origin() const;
    Clock::time_point startedAt() const { return m_start; }
    /// False when the server answered `Connection: close`.
    bool keptOpen() const { return !m_closeAnnounced; }

private:
    static size_t onWrite(char *data, size_t size, size_t count, void *self);
    static size_t onHeader(char *data, size_t size, size_t count, void *self);
    ProbeResult baseResult() const;

    quint64 m_id;
    ProbeRequest m_request;
    ProbeEngine::Callback m_onDone;
    CURL *m_easy = nullptr;
    curl_slist *m_headers = nullptr;
    QByteArray m_url;
    QByteArray m_proxy;
    QByteArray m_caFile;
    QByteArray m_authorization;
    QByteArray m_body;   ///< what is POSTed (curl reads it in place)
    QByteArray m_answer; ///< the response body, up to maxBytes
    SseTtftReader m_sse;
    Clock::time_point m_start;
    qint64 m_startedAtMs = 0;
    double m_ttftMs = -1;
    bool m_tooLong = false;
    bool m_closeAnnounced = false;
    QString m_reason; ///< the last status line's reason phrase
    char m_errorBuffer[CURL_ERROR_SIZE] = {};
};

} // namespace opsdeck::probes
