#include "curltransfer.h"

#include "servermessage.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringDecoder>
#include <algorithm>
#include <cstring>

namespace opsdeck::probes {

namespace {

// A status line's words: UTF-8 when they are, else Latin-1 (RFC 9110's obs-text).
QString headerText(const QByteArray &bytes)
{
    QStringDecoder utf8(QStringDecoder::Utf8);
    const QString text = utf8(bytes);
    return utf8.hasError() ? QString::fromLatin1(bytes) : text;
}

double ms(curl_off_t microseconds)
{
    return static_cast<double>(microseconds) / 1000.0;
}

curl_off_t infoTime(CURL *easy, CURLINFO what)
{
    curl_off_t value = 0;
    curl_easy_getinfo(easy, what, &value);
    return value;
}

/// ChatStream bodies get "stream": true, so a caller cannot measure TTFT of
/// an answer that is not streamed by forgetting it.
QByteArray streamBody(const QByteArray &body)
{
    QJsonObject object = QJsonDocument::fromJson(body).object();
    if (object.isEmpty() || object.value(QLatin1String("stream")).toBool())
        return body;
    object.insert(QLatin1String("stream"), true);
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

} // namespace

CurlTransfer::CurlTransfer(quint64 id, ProbeRequest request, ProbeEngine::Callback onDone)
    : m_id(id), m_request(std::move(request)), m_onDone(std::move(onDone))
{
}

CurlTransfer::~CurlTransfer()
{
    if (m_easy)
        curl_easy_cleanup(m_easy);
    // The Authorization line holds the API key: wipe curl's copy and ours.
    for (curl_slist *h = m_headers; h; h = h->next)
        std::memset(h->data, 0, std::strlen(h->data));
    curl_slist_free_all(m_headers);
    m_authorization.fill('\0');
    m_request.apiKey.fill('\0');
}

QString CurlTransfer::origin() const
{
    const QUrl &url = m_request.url;
    return QStringLiteral("%1://%2:%3 via %4")
        .arg(url.scheme(), url.host())
        .arg(url.port(url.scheme() == u"https" ? 443 : 80))
        .arg(m_request.proxy.isEmpty() ? QStringLiteral("direct")
                                       : m_request.proxy.toString(QUrl::RemoveUserInfo));
}

bool CurlTransfer::setUp(double maxIdleS, QString &error)
{
    m_easy = curl_easy_init();
    if (!m_easy) {
        error = QStringLiteral("libcurl could not create a transfer");
        return false;
    }
    const bool fresh = m_request.mode == ConnectionMode::Fresh;
    m_url = m_request.url.toEncoded();
    // Proxies come only from the request (the inventory path): "" stops curl
    // from reading http_proxy/https_proxy/all_proxy from the environment.
    m_proxy = m_request.proxy.isEmpty() ? QByteArray() : m_request.proxy.toEncoded();
    m_caFile = m_request.caFile.toLocal8Bit();
    if (!m_request.apiKey.isEmpty()) {
        m_authorization = "Authorization: Bearer " + m_request.apiKey;
        m_headers = curl_slist_append(m_headers, m_authorization.constData());
    }
    const bool withBody =
        m_request.kind == ProbeKind::Chat || m_request.kind == ProbeKind::ChatStream;
    if (withBody) {
        m_headers = curl_slist_append(m_headers, "Content-Type: application/json");
        // No 100-continue round trip: it would add a second of waiting to large bodies.
        m_headers = curl_slist_append(m_headers, "Expect:");
        m_body =
            m_request.kind == ProbeKind::ChatStream ? streamBody(m_request.body) : m_request.body;
    }
    const long timeoutMs = std::clamp(m_request.timeoutMs, 1, 600'000);
    CURLcode rc = CURLE_OK;
    auto set = [&](CURLoption option, auto value) {
        if (rc == CURLE_OK)
            rc = curl_easy_setopt(m_easy, option, value);
    };
    set(CURLOPT_URL, m_url.constData());
    set(CURLOPT_PRIVATE, static_cast<void *>(this));
    set(CURLOPT_ERRORBUFFER, m_errorBuffer);
    set(CURLOPT_NOSIGNAL, 1L);
    set(CURLOPT_TIMEOUT_MS, timeoutMs);
    set(CURLOPT_CONNECTTIMEOUT_MS, timeoutMs);
    // HTTP/1.1 keep-alive is what is probed; HTTP/2 would multiplex streams.
    set(CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
    set(CURLOPT_PROXY, m_proxy.constData());
    if (m_proxy.isEmpty())
        set(CURLOPT_NOPROXY, "*");
    set(CURLOPT_FRESH_CONNECT, fresh ? 1L : 0L);
    set(CURLOPT_FORBID_REUSE, fresh ? 1L : 0L);
    // curl retires connections idle longer than MAXAGE_CONN (default 118 s) on
    // its own: keep them past the longest gap the caller waits on purpose.
    set(CURLOPT_MAXAGE_CONN, static_cast<long>(maxIdleS) + 60L);
    // No lifetime limit (0): one would retire a connection in the middle of a
    // series of probes and look like a stale keep-alive.
    set(CURLOPT_MAXLIFETIME_CONN, 0L);
    if (!m_caFile.isEmpty())
        set(CURLOPT_CAINFO, m_caFile.constData());
    // A declared length over the limit is refused before a byte of it is read.
    set(CURLOPT_MAXFILESIZE_LARGE,
        static_cast<curl_off_t>(std::max<qint64>(m_request.maxBytes, 0)));
    set(CURLOPT_SSL_VERIFYPEER, m_request.verifyTls ? 1L : 0L);
    set(CURLOPT_SSL_VERIFYHOST, m_request.verifyTls ? 2L : 0L);
    if (m_headers)
        set(CURLOPT_HTTPHEADER, m_headers);
    if (withBody) {
        set(CURLOPT_POSTFIELDS, m_body.constData());
        set(CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(m_body.size()));
    }
    if (m_request.kind == ProbeKind::Delete)
        set(CURLOPT_CUSTOMREQUEST, "DELETE");
    set(CURLOPT_WRITEFUNCTION, &CurlTransfer::onWrite);
    set(CURLOPT_WRITEDATA, static_cast<void *>(this));
    set(CURLOPT_HEADERFUNCTION, &CurlTransfer::onHeader);
    set(CURLOPT_HEADERDATA, static_cast<void *>(this));
    if (rc != CURLE_OK)
        error = QStringLiteral("libcurl refused an option: %1")
                    .arg(QString::fromUtf8(curl_easy_strerror(rc)));
    return rc == CURLE_OK;
}

void CurlTransfer::markStarted()
{
    m_start = Clock::now();
    m_startedAtMs = QDateTime::currentMSecsSinceEpoch();
}

size_t CurlTransfer::onWrite(char *data, size_t size, size_t count, void *self)
{
    auto *transfer = static_cast<CurlTransfer *>(self);
    const size_t bytes = size * count;
    QByteArray &body = transfer->m_answer;
    if (body.size() + static_cast<qsizetype>(bytes) > transfer->m_request.maxBytes) {
        transfer->m_tooLong = true;
        return 0; // curl ends the transfer with CURLE_WRITE_ERROR
    }
    body.append(data, static_cast<qsizetype>(bytes));
    if (transfer->m_request.kind == ProbeKind::ChatStream &&
        transfer->m_sse.feed(QByteArrayView(data, static_cast<qsizetype>(bytes))))
        transfer->m_ttftMs =
            std::chrono::duration<double, std::milli>(Clock::now() - transfer->m_start).count();
    return bytes;
}

size_t CurlTransfer::onHeader(char *data, size_t size, size_t count, void *self)
{
    const size_t bytes = size * count;
    auto *transfer = static_cast<CurlTransfer *>(self);
    const QByteArray raw = QByteArray(data, static_cast<qsizetype>(bytes)).trimmed();
    if (raw.startsWith("HTTP/")) {
        // "HTTP/1.1 503 Service Unavailable": the words after the code (the
        // last status line wins, after a 100 Continue or a proxy's answer).
        const QList<QByteArray> parts = raw.split(' ');
        // Kept whole: cut to one line only after the API key is redacted.
        transfer->m_reason = parts.size() > 2
                                 ? headerText(raw.mid(parts[0].size() + parts[1].size() + 2))
                                 : QString();
        return bytes;
    }
    const QByteArray line = raw.toLower();
    if (line.startsWith("connection:") && line.contains("close"))
        transfer->m_closeAnnounced = true;
    return bytes;
}

ProbeResult CurlTransfer::baseResult() const
{
    ProbeResult result;
    result.id = m_id;
    result.label = m_request.label;
    result.kind = m_request.kind;
    result.mode = m_request.mode;
    result.url = m_request.url.adjusted(QUrl::RemoveUserInfo);
    result.startedAtMs = m_startedAtMs;
    return result;
}

ProbeResult CurlTransfer::cancelledResult() const
{
    ProbeResult result = baseResult();
    result.cancelled = true;
    result.error = QStringLiteral("cancelled");
    result.note = QStringLiteral("cancelled");
    return result;
}

ProbeResult CurlTransfer::finish(CURLcode code)
{
    ProbeResult result = baseResult();
    long status = 0;
    long connects = 0;
    long localPort = 0;
    curl_off_t bytes = 0;
    curl_easy_getinfo(m_easy, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(m_easy, CURLINFO_NUM_CONNECTS, &connects);
    curl_easy_getinfo(m_easy, CURLINFO_LOCAL_PORT, &localPort);
    curl_easy_getinfo(m_easy, CURLINFO_SIZE_DOWNLOAD_T, &bytes);
    result.status = static_cast<int>(status);
    result.newConnections = connects;
    result.localPort = static_cast<int>(localPort);
    result.bytes = static_cast<qint64>(bytes);
    result.namelookupMs = ms(infoTime(m_easy, CURLINFO_NAMELOOKUP_TIME_T));
    // curl stamps "connected" even for a reused connection (a few µs in);
    // no connect or TLS handshake happened, so they are 0 (probe.h).
    if (connects > 0) {
        result.connectMs = ms(infoTime(m_easy, CURLINFO_CONNECT_TIME_T));
        result.tlsMs = ms(infoTime(m_easy, CURLINFO_APPCONNECT_TIME_T));
    }
    result.ttfbMs = ms(infoTime(m_easy, CURLINFO_STARTTRANSFER_TIME_T));
    result.totalMs = ms(infoTime(m_easy, CURLINFO_TOTAL_TIME_T));
    result.ttftMs = m_ttftMs;
    // A server may echo the Authorization header it refused ("Incorrect API
    // key provided: Bearer sk-..."): the key never leaves this transfer.
    result.body = redactedSecret(m_answer, m_request.apiKey);
    result.reason = printableLine(redactedSecret(m_reason, m_request.apiKey));
    if (char *type = nullptr;
        curl_easy_getinfo(m_easy, CURLINFO_CONTENT_TYPE, &type) == CURLE_OK && type)
        result.contentType = type;
    if (code == CURLE_COULDNT_CONNECT) {
        long osErrno = 0;
        curl_easy_getinfo(m_easy, CURLINFO_OS_ERRNO, &osErrno);
        if (osErrno != 0)
            result.connectError = QString::fromLocal8Bit(std::strerror(static_cast<int>(osErrno)));
    }
    result.tlsFailed = code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CONNECT_ERROR ||
                       code == CURLE_SSL_CACERT_BADFILE || code == CURLE_SSL_CERTPROBLEM;
    if (code == CURLE_FILESIZE_EXCEEDED)
        m_tooLong = true;
    result.tooLarge = m_tooLong;
    if (m_tooLong) {
        result.error = QStringLiteral("answer longer than %1 bytes").arg(m_request.maxBytes);
    } else if (code == CURLE_OPERATION_TIMEDOUT) {
        result.timedOut = true;
        result.error =
            QString::fromUtf8(m_errorBuffer[0] ? m_errorBuffer : curl_easy_strerror(code));
        result.note = QStringLiteral("timed out after %1 ms").arg(m_request.timeoutMs);
    } else if (code != CURLE_OK) {
        result.error =
            QString::fromUtf8(m_errorBuffer[0] ? m_errorBuffer : curl_easy_strerror(code));
    } else if (status < 200 || status >= 300) {
        result.note = failureOf(result);
    } else if (m_request.kind == ProbeKind::ChatStream && m_ttftMs < 0) {
        // A 200 whose stream never carried a content token served nothing:
        // a failure, whatever the status line said.
        result.error = QStringLiteral("the stream ended without a content token");
        result.note = result.error;
    }
    return result;
}

} // namespace opsdeck::probes
