#include "boundedget.h"

#include "httprequestsettings.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSslConfiguration>
#include <QSslError>
#include <QTimer>

namespace opsdeck::probes {

namespace {
const char *const timedOutProperty = "opsdeck.timedOutMs";
const char *const tooLargeProperty = "opsdeck.tooLargeBytes";
const char *const tlsErrorsProperty = "opsdeck.tlsErrors";
const char *const settingsProblemProperty = "opsdeck.settingsProblem";
const char *const serviceProperty = "opsdeck.service";

void bound(QNetworkReply *reply, int timeoutMs, qint64 maxBytes)
{
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
}

QNetworkRequest plainRequest(const QUrl &url)
{
    QNetworkRequest request(url);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    return request;
}

} // namespace

QNetworkReply *boundedGet(QNetworkAccessManager &network, const QUrl &url, int timeoutMs,
                          qint64 maxBytes)
{
    QNetworkReply *reply = network.get(plainRequest(url));
    bound(reply, timeoutMs, maxBytes);
    return reply;
}

QNetworkReply *boundedGet(QNetworkAccessManager &network, const QUrl &url,
                          const HttpRequestSettings &settings, int defaultTimeoutMs,
                          qint64 maxBytes)
{
    if (!settings.problem.isEmpty()) {
        // A scheme no manager serves fails at once, asynchronously, like any
        // other failed request; replyProblem() then gives the settings' text.
        QNetworkReply *reply =
            network.get(QNetworkRequest(QUrl(QStringLiteral("opsdeck-unusable:"))));
        reply->setProperty(settingsProblemProperty, settings.problem);
        return reply;
    }
    QNetworkRequest request = plainRequest(url);
    if (!settings.apiKey.isEmpty())
        request.setRawHeader(QByteArrayLiteral("Authorization"),
                             QByteArrayLiteral("Bearer ") + settings.apiKey);
    if (url.scheme() == QLatin1String("https")) {
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        if (!settings.caCertificates.isEmpty())
            tls.setCaCertificates(settings.caCertificates);
        tls.setPeerVerifyMode(settings.verifyTls ? QSslSocket::VerifyPeer : QSslSocket::VerifyNone);
        request.setSslConfiguration(tls);
    }
    QNetworkReply *reply = network.get(request);
    reply->setProperty(serviceProperty, settings.service);
    // Errors are recorded, never ignored: Qt then fails the handshake.
    QObject::connect(reply, &QNetworkReply::sslErrors, reply,
                     [reply](const QList<QSslError> &errors) {
                         QStringList reasons;
                         for (const QSslError &error : errors)
                             reasons.append(error.errorString());
                         reasons.removeDuplicates();
                         reply->setProperty(tlsErrorsProperty, reasons);
                     });
    bound(reply, settings.timeoutMs > 0 ? settings.timeoutMs : defaultTimeoutMs, maxBytes);
    return reply;
}

bool replyTimedOut(QNetworkReply *reply)
{
    return reply->property(timedOutProperty).isValid();
}

QString replyProblem(QNetworkReply *reply)
{
    if (const QVariant problem = reply->property(settingsProblemProperty); problem.isValid())
        return problem.toString();
    if (const QVariant ms = reply->property(timedOutProperty); ms.isValid())
        return QStringLiteral("no answer within %1 ms").arg(ms.toInt());
    if (const QVariant bytes = reply->property(tooLargeProperty); bytes.isValid())
        return QStringLiteral("body larger than %1 bytes").arg(bytes.toLongLong());
    if (const QVariant tls = reply->property(tlsErrorsProperty); tls.isValid())
        return QStringLiteral("service %1: TLS verification failed: %2")
            .arg(reply->property(serviceProperty).toString(),
                 tls.toStringList().join(QStringLiteral("; ")));
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
