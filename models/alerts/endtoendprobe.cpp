#include "endtoendprobe.h"

#include "boundedget.h"
#include "secretstore.h"
#include "servermessage.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTimer>
#include <algorithm>
#include <spdlog/spdlog.h>

using namespace Qt::StringLiterals;

namespace opsdeck::alerts {

namespace {

constexpr qsizetype maxErrorChars = 200;

// Why a finished reply has no usable answer, in words; never the URL's user info
// nor the API key (a server may echo the header it refused). Only a whole
// HTTP 200 is an answer.
QString problemOf(QNetworkReply *reply, const QByteArray &apiKey)
{
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status == 200 && reply->error() == QNetworkReply::NoError)
        return {};
    if (status == 0 || probes::replyCut(reply))
        // boundedGet's words for timeouts, size, TLS, unusable settings and
        // answers cut after their status line; Qt's otherwise.
        return probes::redactedSecret(probes::replyProblem(reply), apiKey).left(maxErrorChars);
    const QString message =
        probes::serverMessage(probes::redactedSecret(probes::boundedBody(reply), apiKey));
    const QString text =
        message.isEmpty() ? u"HTTP %1"_s.arg(status) : u"HTTP %1: %2"_s.arg(status).arg(message);
    return text.left(maxErrorChars);
}

} // namespace

EndToEndProbe::EndToEndProbe(QString cluster, inventory::Service entry, Settings settings,
                             QObject *parent)
    : QObject(parent), m_cluster(std::move(cluster)), m_entry(std::move(entry)),
      m_settings(settings)
{
    qRegisterMetaType<EndToEndResult>();
}

EndToEndProbe::~EndToEndProbe()
{
    m_http.wipe();
}

void EndToEndProbe::start()
{
    if (!m_network) {
        // Resolved here, on the probe's thread: reading a key from the secret
        // store waits on it (a local event loop), which the GUI thread must not.
        if (m_entry.http.apiKeySecret.isEmpty()) {
            m_http = probes::HttpRequestSettings::withoutSecrets(m_entry);
        } else {
            // The application's store: QtKeychain jobs must run in one thread.
            m_http = probes::HttpRequestSettings::resolve(m_entry, secrets::SecretStore::shared(),
                                                          std::chrono::seconds(10));
        }
        if (!m_http.problem.isEmpty())
            spdlog::warn("end-to-end probe of cluster {}: {}", m_cluster.toStdString(),
                         m_http.problem.toStdString());
        // The entry's proxy, or none; never one from the environment.
        m_network = &m_networks.forProxy(m_http.proxy);
        m_timer = new QTimer(this);
        connect(m_timer, &QTimer::timeout, this, &EndToEndProbe::probeNow);
    }
    if (m_settings.intervalMs > 0)
        m_timer->start(m_settings.intervalMs);
    probeNow();
}

void EndToEndProbe::stop()
{
    if (m_timer)
        m_timer->stop();
}

QUrl EndToEndProbe::endpoint(const QString &path) const
{
    QUrl url = m_entry.url;
    QString base = url.path();
    while (base.endsWith(u'/'))
        base.chop(1);
    url.setPath(base + path);
    return url;
}

void EndToEndProbe::probeNow()
{
    if (!m_network || m_inFlight)
        return;
    m_inFlight = true;
    if (!m_model.isEmpty()) {
        postChat();
        return;
    }
    QNetworkReply *reply = probes::boundedGet(*m_network, endpoint(u"/v1/models"_s), m_http,
                                              m_settings.timeoutMs, m_settings.maxBytes);
    connect(reply, &QNetworkReply::finished, this, [this, reply] { modelsAnswered(reply); });
}

void EndToEndProbe::modelsAnswered(QNetworkReply *reply)
{
    reply->deleteLater();
    QString problem = problemOf(reply, m_http.apiKey);
    if (problem.isEmpty()) {
        const QJsonArray models =
            QJsonDocument::fromJson(probes::boundedBody(reply)).object().value(u"data"_s).toArray();
        m_model =
            models.isEmpty() ? QString() : models.first().toObject().value(u"id"_s).toString();
        if (m_model.isEmpty())
            problem = u"no model listed"_s;
    }
    if (!problem.isEmpty()) {
        EndToEndResult result;
        result.url = endpoint(u"/v1/chat/completions"_s).adjusted(QUrl::RemoveUserInfo);
        result.httpStatus = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        result.error = u"GET /v1/models: "_s + problem;
        finish(result);
        return;
    }
    postChat();
}

void EndToEndProbe::postChat()
{
    const QJsonObject message{{u"role"_s, u"user"_s}, {u"content"_s, u"Reply with one word."_s}};
    const QJsonObject request{{u"model"_s, m_model},
                              {u"messages"_s, QJsonArray{message}},
                              {u"max_tokens"_s, 1},
                              {u"stream"_s, false}};
    const QByteArray body = QJsonDocument(request).toJson(QJsonDocument::Compact);
    m_chatClock.start();
    QNetworkReply *reply = probes::boundedPost(*m_network, endpoint(u"/v1/chat/completions"_s),
                                               body, QByteArrayLiteral("application/json"), m_http,
                                               m_settings.timeoutMs, m_settings.maxBytes);
    connect(reply, &QNetworkReply::finished, this, [this, reply] { chatAnswered(reply); });
}

void EndToEndProbe::chatAnswered(QNetworkReply *reply)
{
    reply->deleteLater();
    EndToEndResult result;
    result.url = reply->url().adjusted(QUrl::RemoveUserInfo);
    result.ms = static_cast<double>(m_chatClock.nsecsElapsed()) / 1e6;
    result.httpStatus = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    result.model = m_model;
    result.error = problemOf(reply, m_http.apiKey);
    if (result.error.isEmpty()) {
        const QJsonDocument document = QJsonDocument::fromJson(probes::boundedBody(reply));
        if (document.object().value(u"choices"_s).toArray().isEmpty())
            result.error = u"HTTP 200 without a choices list"_s;
    }
    result.ok = result.error.isEmpty();
    // A model that vanished (a redeploy under a new name) is learned again next time.
    if (!result.ok)
        m_model.clear();
    finish(result);
}

void EndToEndProbe::finish(EndToEndResult result)
{
    result.cluster = m_cluster;
    result.service = m_entry.name;
    result.finishedAtMs = QDateTime::currentMSecsSinceEpoch();
    m_inFlight = false;
    if (!result.ok && m_settings.intervalMs > 0 && m_timer && m_timer->isActive())
        QTimer::singleShot(std::min(m_settings.retryMs, m_settings.intervalMs), this,
                           &EndToEndProbe::probeNow);
    Q_EMIT probeFinished(result);
}

} // namespace opsdeck::alerts
