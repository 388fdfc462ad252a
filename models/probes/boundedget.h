#pragma once

#include <QByteArray>
#include <QString>
#include <QUrl>

class QNetworkAccessManager;
class QNetworkReply;

namespace opsdeck::probes {

struct HttpRequestSettings;

/// A GET that cannot run away: it is aborted when the whole request (connect,
/// TLS, headers, body) takes longer than its timeout, or when the body passes
/// `maxBytes` — a server that sends headers a byte a second or an endless
/// body costs at most that time and that memory. Redirects are not followed.
/// The reply belongs to the caller (deleteLater it in its finished handler).
/// Thread: the thread of `network`.
QNetworkReply *boundedGet(QNetworkAccessManager &network, const QUrl &url, int timeoutMs,
                          qint64 maxBytes);

/// The same with a service's HTTP settings (the inventory's `http:` block):
/// `Authorization: Bearer <key>` when it has an API key; TLS verified against
/// its CA certificates, or the system roots, unless verification is switched
/// off (a failure names the service and the reason, see replyProblem());
/// `settings.timeoutMs` when set, else `defaultTimeoutMs`. `network` must be
/// the manager of the service's proxy (ProxyNetworks). When `settings.problem`
/// is set no request is sent: the reply fails with that text.
QNetworkReply *boundedGet(QNetworkAccessManager &network, const QUrl &url,
                          const HttpRequestSettings &settings, int defaultTimeoutMs,
                          qint64 maxBytes);

/// A POST of `body` (sent as `contentType`, e.g. "application/json") with the
/// same service settings and the same bounds as boundedGet() above: one path
/// builds both requests, so a key, CA or deadline applies alike to either.
/// Read its answer with boundedBody(), replyProblem() and replyCut().
QNetworkReply *boundedPost(QNetworkAccessManager &network, const QUrl &url, const QByteArray &body,
                           const QByteArray &contentType, const HttpRequestSettings &settings,
                           int defaultTimeoutMs, qint64 maxBytes);

/// Why a finished reply from boundedGet() or boundedPost() has no usable answer, in words for
/// the operator ("no answer within 2000 ms", "body larger than 65536 bytes",
/// "Connection refused", "service decode: TLS verification failed: The host
/// name did not match ..."); empty when it answered. Never includes the URL's
/// user info (a password in the URL stays out of logs), nor the API key.
QString replyProblem(QNetworkReply *reply);
/// The body of a finished reply from boundedGet() or boundedPost(), read as it arrived (use
/// this, not readAll(): the reply's own buffer is kept small so that a huge
/// body costs at most `maxBytes` plus 256 KiB). Empty when it was too large.
/// Call once; it hands the bytes over.
QByteArray boundedBody(QNetworkReply *reply);
/// True when a status line came but the answer then broke (the connection
/// closed before Content-Length, aborted at the size limit or the deadline):
/// a 200 that must not count as an answer. replyProblem() then says
/// "HTTP 200, then <reason>".
bool replyCut(QNetworkReply *reply);
/// True when the reply was aborted at its deadline.
bool replyTimedOut(QNetworkReply *reply);

} // namespace opsdeck::probes
