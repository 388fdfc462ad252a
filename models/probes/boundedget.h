#pragma once

#include <QString>
#include <QUrl>

class QNetworkAccessManager;
class QNetworkReply;

namespace opsdeck::probes {

/// A GET that cannot run away: it is aborted when the whole request (connect,
/// headers, body) takes longer than `timeoutMs`, or when the body passes
/// `maxBytes` — a server that sends headers a byte a second or an endless
/// body costs at most that time and that memory. Redirects are not followed.
/// The reply belongs to the caller (deleteLater it in its finished handler).
/// Thread: the thread of `network`.
QNetworkReply *boundedGet(QNetworkAccessManager &network, const QUrl &url, int timeoutMs,
                          qint64 maxBytes);

/// Why a finished reply from boundedGet() has no usable answer, in words for
/// the operator ("no answer within 2000 ms", "body larger than 65536 bytes",
/// "Connection refused"); empty when it answered. Never includes the URL's
/// user info (a password in the URL stays out of logs).
QString replyProblem(QNetworkReply *reply);
/// True when the reply was aborted at its deadline.
bool replyTimedOut(QNetworkReply *reply);

} // namespace opsdeck::probes
