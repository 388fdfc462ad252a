#include "boundedget.h"

#include "httprequestsettings.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSslConfiguration>
#include <QSslError>
#include <QTimer>
#include <utility>

namespace opsdeck::probes {

namespace {
const char *const timedOutProperty = "opsdeck.timedOutMs";
const char *const tooLargeProperty = "opsdeck.tooLargeBytes";
const char *const tlsErrorsProperty = "opsdeck.tlsErrors";
const char *const settingsProblemProperty = "opsdeck.settingsProblem";
const char *const serviceProperty = "opsdeck.service";

// Qt's HTTP thread reads the socket ahead of the reply's thread; without a
// read buffer limit a busy poller thread finds a whole 100 MB body buffered
// before its size check runs. A small buffer gives back-pressure, and the
// body is moved into this collector as it arrives, so memory stays within
// maxBytes + readBufferBytes.
constexpr qint64 readBufferBytes = 256 * 1024;

class BodyCollector : public QObject
{
public:
    explicit BodyCollector(QNetworkReply *reply) : QObject(reply) {}
    QByteArray body;
};

BodyCollector *collector(QNetworkReply *reply)
{
    // Not findChild<>: BodyCollector has no meta-object of its own, so
    // qobject_cast would take the deadline timer for it.
    for (QObject *child : reply->children())
        if (auto *body = dynamic_cast<BodyCollector *>(child))
            return body;
    return nullptr;
}

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
    reply->setReadBufferSize(readBufferBytes);
    auto *body = new BodyCollector(reply);
    const auto tooLarge = [reply, body, maxBytes] {
        reply->setProperty(tooLargeProperty, maxBytes);
        body->body.clear();
        body->body.squeeze();
        reply->abort();
    };
    // A declared length over the limit is refused before a byte of it is
    // read, so several such requests at once cost nothing.
    QObject::connect(reply, &QNetworkReply::metaDataChanged, body, [reply, maxBytes, tooLarge] {
        const QVariant length = reply->header(QNetworkRequest::ContentLengthHeader);
        if (length.isValid() && length.toLongLong() > maxBytes &&
            !reply->property(tooLargeProperty).isValid())
            tooLarge();
    });
    // A chunked or lying body is cut as it arrives, checked before it is
    // appended so the buffer never grows past the limit.
    QObject::connect(reply, &QNetworkReply::readyRead, body, [reply, body, maxBytes, tooLarge] {
        if (reply->property(tooLargeProperty).isValid())
            return;
        if (body->body.size() + reply->bytesAvailable() > maxBytes) {
            tooLarge();
            return;
        }
        body->body.append(reply->readAll());
    });
}

QNetworkRequest plainRequest(const QUrl &url)
{
    QNetworkRequest request(url);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    return request;
}

// The one path of every request to a service, whatever its verb: `send` gets
// the request with the service's API key and TLS settings and issues it.
template <typename Send>
QNetworkReply *sendToService(QNetworkAccessManager &network, const QUrl &url,
                             const HttpRequestSettings &settings, int defaultTimeoutMs,
                             qint64 maxBytes, Send send)
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
    QNetworkReply *reply = send(request);
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
    return sendToService(
        network, url, settings, defaultTimeoutMs, maxBytes,
        [&network](const QNetworkRequest &request) { return network.get(request); });
}

QNetworkReply *boundedPost(QNetworkAccessManager &network, const QUrl &url, const QByteArray &body,
                           const QByteArray &contentType, const HttpRequestSettings &settings,
                           int defaultTimeoutMs, qint64 maxBytes)
{
    return sendToService(network, url, settings, defaultTimeoutMs, maxBytes,
                         [&](QNetworkRequest request) {
                             request.setHeader(QNetworkRequest::ContentTypeHeader, contentType);
                             return network.post(request, body);
                         });
}

QByteArray boundedBody(QNetworkReply *reply)
{
    BodyCollector *body = collector(reply);
    if (!body)
        return reply->isOpen() ? reply->readAll() : QByteArray();
    if (reply->property(tooLargeProperty).isValid())
        return {};
    if (reply->isOpen())
        body->body.append(reply->readAll());
    return std::exchange(body->body, QByteArray());
}

bool replyCut(QNetworkReply *reply)
{
    // Network-layer errors are 1..99 in QNetworkReply::NetworkError; HTTP
    // status errors (404, 500...) are 200 and above and are not a cut.
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const auto error = reply->error();
    return status != 0 && error != QNetworkReply::NoError &&
           error < QNetworkReply::ProxyConnectionRefusedError;
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
    if (status != 0 && !replyCut(reply))
        return QStringLiteral("HTTP %1").arg(status);
    // Qt's error strings quote the URL, user info included: use our own words.
    QString text = reply->errorString();
    const QString withUser = reply->url().toString();
    if (!reply->url().userInfo().isEmpty())
        text.replace(withUser, reply->url().toDisplayString(QUrl::RemoveUserInfo));
    if (status != 0)
        return QStringLiteral("HTTP %1, then %2").arg(status).arg(text);
    return text;
}

} // namespace opsdeck::probes
