#include "boundedget.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTimer>

namespace opsdeck::probes {

namespace {
const char *const timedOutProperty = "opsdeck.timedOutMs";
const char *const tooLargeProperty = "opsdeck.tooLargeBytes";
} // namespace

QNetworkReply *boundedGet(QNetworkAccessManager &network, const QUrl &url, int timeoutMs,
                          qint64 maxBytes)
{
    QNetworkRequest request(url);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    QNetworkReply *reply = network.get(request);
    // transferTimeout alone restarts with every byte; this one does not.
    auto *deadline = new QTimer(reply);
    deadline->setSingleShot(true);
    QObject::connect(deadline, &QTimer::timeout, reply, [reply, timeoutMs] {
        if (!reply->isRunning())
            return;
        reply->setProperty(timedOutProperty, timeoutMs);
        reply->abort();
    });
    deadline->start(timeoutMs);
    QObject::connect(reply, &QNetworkReply::downloadProgress, reply,
                     [reply, maxBytes](qint64 received, qint64) {
                         if (received <= maxBytes || !reply->isRunning())
                             return;
                         reply->setProperty(tooLargeProperty, maxBytes);
                         reply->abort();
                     });
    return reply;
}

bool replyTimedOut(QNetworkReply *reply)
{
    return reply->property(timedOutProperty).isValid();
}

QString replyProblem(QNetworkReply *reply)
{
    if (const QVariant ms = reply->property(timedOutProperty); ms.isValid())
        return QStringLiteral("no answer within %1 ms").arg(ms.toInt());
    if (const QVariant bytes = reply->property(tooLargeProperty); bytes.isValid())
        return QStringLiteral("body larger than %1 bytes").arg(bytes.toLongLong());
    if (reply->error() == QNetworkReply::NoError)
        return {};
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status != 0)
        return QStringLiteral("HTTP %1").arg(status);
    // Qt's error strings quote the URL, user info included: use our own words.
    QString text = reply->errorString();
    const QString withUser = reply->url().toString();
    if (!reply->url().userInfo().isEmpty())
        text.replace(withUser, reply->url().toDisplayString(QUrl::RemoveUserInfo));
    return text;
}

} // namespace opsdeck::probes
