#pragma once

#include <QByteArray>
#include <QMetaType>
#include <QString>
#include <QUrl>

namespace opsdeck::probes {

/// How a probe gets its TCP connection (issue 4, DESIGN.md "keep-alive").
enum class ConnectionMode
{
    /// A new connection, reuse forbidden (CURLOPT_FRESH_CONNECT + FORBID_REUSE):
    /// what a client that opens one connection per request sees.
    Fresh,
    /// The kept-alive connection of this request's origin (scheme, host, port,
    /// proxy) that already served a request, used again: what an agentic client
    /// that thinks between rounds sees. The first reused probe of an origin has
    /// no connection yet and opens one (a warm-up: connectionReused false).
    Reused,
};

/// What is sent. All kinds carry the service's API key when it has one.
enum class ProbeKind
{
    Get,        ///< GET url (health, /v1/models, /v1/loads)
    Chat,       ///< POST url with a JSON body (tiny chat completion), answer read whole
    ChatStream, ///< the same with "stream": true; TTFT measured from the SSE events
    Delete,     ///< DELETE url, no body (a router's worker API: DELETE /workers/{id})
};

/// One request to probe. Plain data, any thread.
struct ProbeRequest
{
    ProbeKind kind = ProbeKind::Get;
    ConnectionMode mode = ConnectionMode::Fresh;
    QUrl url;        ///< full URL, e.g. http://127.0.0.1:8080/v1/chat/completions
    QByteArray body; ///< JSON body of Chat / ChatStream; empty for Get
    /// `Authorization: Bearer <apiKey>` when not empty. A secret: never logged,
    /// never part of ProbeResult or of the "copy as curl" command.
    QByteArray apiKey;
    QString caFile;        ///< PEM CA file for https; empty: system roots
    bool verifyTls = true; ///< false: no peer or host-name checks
    /// Forward proxy from the inventory path (http://HOST:PORT); empty: direct.
    /// Proxies are never taken from the environment (CURLOPT_PROXY is always set).
    QUrl proxy;
    int timeoutMs = 10'000;    ///< whole probe, ms (CURLOPT_TIMEOUT_MS); 1..600000
    qint64 maxBytes = 1 << 20; ///< answers longer than this are cut and fail, bytes
    QString label;             ///< free text the caller uses to find its result (path name...)
};

/// What one probe saw. Times are curl's -w fields, ms from the start of the
/// transfer, each cumulative as curl prints them: time_namelookup,
/// time_connect, time_appconnect (TLS done; 0 for http), time_starttransfer
/// (first response byte) and time_total. Plain data, any thread.
struct ProbeResult
{
    quint64 id = 0; ///< the id ProbeEngine::submit() returned
    QString label;  ///< ProbeRequest::label
    ProbeKind kind = ProbeKind::Get;
    ConnectionMode mode = ConnectionMode::Fresh;
    QUrl url;                ///< without user info
    qint64 startedAtMs = 0;  ///< wall clock when the transfer started, ms since the Unix epoch
    int status = 0;          ///< HTTP status; 0 when no response came
    double namelookupMs = 0; ///< curl time_namelookup, ms
    double connectMs = 0;    ///< curl time_connect, ms; 0 on a reused connection
    double tlsMs = 0;        ///< curl time_appconnect, ms; 0 without TLS or when reused
    double ttfbMs = 0;       ///< curl time_starttransfer, ms
    double totalMs = 0;      ///< curl time_total, ms
    /// ChatStream: ms from the start to the first SSE event whose
    /// choices[0].delta.content is a non-empty string (not the first byte, not
    /// a role-only or empty first chunk). -1 when none came or not a stream.
    double ttftMs = -1;
    qint64 bytes = 0; ///< response body bytes received (curl size_download)
    /// True when the request went on a connection that already served one
    /// (curl's CURLINFO_NUM_CONNECTS == 0 and the local port equals the one the
    /// origin's connection had), false when a connection was opened for it.
    bool connectionReused = false;
    long newConnections = 0; ///< CURLINFO_NUM_CONNECTS: connections curl opened for it
    int localPort = 0;       ///< CURLINFO_LOCAL_PORT: the connection's identity; 0 when none
    /// The connection this Reused probe was meant to use had been closed by
    /// the server while idle, and curl replaced it with a new one: "stale
    /// keep-alive replaced". Not a failure of the service, not a reused-latency sample.
    bool staleKeepAlive = false;
    /// How long the replaced connection had been idle, s (> 0 only with staleKeepAlive).
    double staleIdleS = 0;
    bool timedOut = false;  ///< the probe hit timeoutMs
    bool cancelled = false; ///< cancelled before it finished
    QString error;          ///< curl's error text or the reason of a failure; empty when ok
    /// One line for people: "stale keep-alive replaced: ...", "warm-up", "HTTP 503"...
    QString note;
    QByteArray body; ///< the answer (up to maxBytes) for callers that parse it
    /// The answer's Content-Type header (curl's CURLINFO_CONTENT_TYPE); empty when none.
    QByteArray contentType;
    /// The status line's reason phrase ("Service Unavailable"); empty when none came.
    QString reason;
    /// The answer passed maxBytes (declared or as it arrived): cut, and `error` says so.
    bool tooLarge = false;
    /// The TLS handshake or the server's certificate failed (`error` has curl's reason).
    bool tlsFailed = false;
    /// The operating system's reason for a failed connect ("Connection refused",
    /// strerror of CURLINFO_OS_ERRNO); empty when the connect did not fail.
    QString connectError;

    /// Status 2xx, no error, not cancelled. A ChatStream whose 2xx stream
    /// carried no content token has `error` set ("the stream ended without a
    /// content token"), so it is not ok().
    bool ok() const { return error.isEmpty() && !cancelled && status >= 200 && status < 300; }
};

/// Why `result` is not ok(), in one line for people; empty when it is ok().
/// "cancelled"; a non-2xx status with the server's reason phrase and message
/// (serverMessage, servermessage.h) and any error after it: "HTTP 502 Bad
/// Gateway: upstream unavailable: Read", "HTTP 500 Internal Server Error
/// (answer longer than 1048576 bytes)"; otherwise curl's error or ours (no
/// status, or a 2xx that failed), or "no answer". Any thread.
QString failureOf(const ProbeResult &result);

/// Why a plain GET or POST (a health check, a page, an API call) has no usable
/// answer, in the words every client of the engine uses: "no answer within
/// `timeoutMs` ms", "body larger than `maxBytes` bytes", "TLS verification
/// failed: <curl's reason>", "HTTP 200, then <why the body broke>", the
/// operating system's reason ("Connection refused"), or curl's error; empty
/// when the transfer went through (any status: the caller judges the status).
/// Never includes the URL's user info or an API key. Any thread.
QString transferProblem(const ProbeResult &result, int timeoutMs, qint64 maxBytes);

/// A probe's total time as people read it: "12.3 ms", "1.25 s"; a probe that
/// hit its deadline is a lower bound, never a measured length: "> 6.0 s (timed
/// out)". Any thread.
QString totalTimeText(const ProbeResult &result);

QString connectionModeName(ConnectionMode mode); ///< "fresh" / "reused"
QString probeKindName(ProbeKind kind);           ///< "get" / "chat" / "chat-stream"

} // namespace opsdeck::probes

Q_DECLARE_METATYPE(opsdeck::probes::ProbeResult)
