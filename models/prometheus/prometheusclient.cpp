#include "prometheusclient.h"

#include "boundedget.h"
#include "queryresponseparser.h"

#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QTimer>

namespace opsdeck::prometheus {

namespace {

/// Unix seconds with ms, as the API takes them ("1700000000.123").
QString secondsText(qint64 ms)
{
    return QString::number(static_cast<double>(ms) / 1000.0, 'f', 3);
}

} // namespace

PrometheusClient::PrometheusClient(const QUrl &server, QObject *parent)
    : QObject(parent), m_server(server)
{
    qRegisterMetaType<QueryResult>();
}

QString PrometheusClient::serverName() const
{
    return QStringLiteral("%1:%2")
        .arg(m_server.host())
        .arg(m_server.port(m_server.scheme() == QLatin1String("https") ? 443 : 80));
}

quint64 PrometheusClient::queryRange(const QString &promql, qint64 fromMs, qint64 toMs,
                                     double stepS)
{
    if (toMs < fromMs || !(stepS > 0)) {
        const quint64 id = ++m_nextId;
        failLater(id, QStringLiteral("bad range: from %1 to %2 ms, step %3 s")
                          .arg(fromMs)
                          .arg(toMs)
                          .arg(stepS));
        return id;
    }
    return get(QStringLiteral("/api/v1/query_range"),
               {{QStringLiteral("query"), promql},
                {QStringLiteral("start"), secondsText(fromMs)},
                {QStringLiteral("end"), secondsText(toMs)},
                {QStringLiteral("step"), QString::number(stepS, 'g', 10)}});
}

quint64 PrometheusClient::query(const QString &promql, qint64 atMs)
{
    return get(QStringLiteral("/api/v1/query"),
               {{QStringLiteral("query"), promql}, {QStringLiteral("time"), secondsText(atMs)}});
}

quint64 PrometheusClient::get(const QString &apiPath,
                              const QList<QPair<QString, QString>> &parameters)
{
    const quint64 id = ++m_nextId;
    if (!m_network) {
        // Created on first use so that it lives in the caller's thread.
        m_network = new QNetworkAccessManager(this);
        m_network->setProxy(QNetworkProxy::NoProxy);
    }
    QUrl url = m_server;
    QString base = url.path();
    while (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    url.setPath(base + apiPath);
    // Encoded by hand: QUrlQuery leaves '+' as is, which Go's form parser
    // reads as a space ("rate(a[1m]) + b" would break).
    QByteArray query;
    for (const auto &[key, value] : parameters) {
        if (!query.isEmpty())
            query += '&';
        query += QUrl::toPercentEncoding(key) + '=' + QUrl::toPercentEncoding(value);
    }
    url.setQuery(QString::fromLatin1(query), QUrl::StrictMode);
    QNetworkReply *reply =
        probes::boundedGet(*m_network, url, m_settings.timeoutMs, m_settings.maxBytes);
    connect(reply, &QNetworkReply::finished, this, [this, id, reply] { answered(id, reply); });
    return id;
}

void PrometheusClient::answered(quint64 id, QNetworkReply *reply)
{
    reply->deleteLater();
    const int httpStatus = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    // A status line followed by a broken body (closed early, aborted at the
    // deadline or the size limit) is a failure, whatever the status said.
    if (httpStatus == 0 || probes::replyCut(reply)) {
        QueryResult result;
        result.error =
            QStringLiteral("Prometheus at %1: %2").arg(serverName(), probes::replyProblem(reply));
        Q_EMIT queryFinished(id, result);
        return;
    }
    Q_EMIT queryFinished(
        id, QueryResponseParser::parse(probes::boundedBody(reply), httpStatus, serverName()));
}

void PrometheusClient::failLater(quint64 id, const QString &text)
{
    QueryResult result;
    result.error = QStringLiteral("Prometheus at %1: %2").arg(serverName(), text);
    QTimer::singleShot(0, this, [this, id, result] { Q_EMIT queryFinished(id, result); });
}

} // namespace opsdeck::prometheus
