#include "prometheusclient.h"

#include "probeengine.h"
#include "queryresponseparser.h"

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

// Out of line: the engine's type is complete here. Its destruction cancels
// what is in flight; the answers it then reports are queued to this object
// and dropped with it.
PrometheusClient::~PrometheusClient() = default;

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
    if (!m_engine)
        m_engine = std::make_unique<probes::ProbeEngine>();
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
    probes::ProbeRequest request;
    request.url = url;
    request.timeoutMs = m_settings.timeoutMs;
    request.maxBytes = m_settings.maxBytes;
    m_engine->submit(std::move(request), [this, id](const probes::ProbeResult &result) {
        QMetaObject::invokeMethod(
            this, [this, id, result] { answered(id, result); }, Qt::QueuedConnection);
    });
    return id;
}

void PrometheusClient::answered(quint64 id, const probes::ProbeResult &answer)
{
    // A status line followed by a broken body (closed early, cut at the
    // deadline or the size limit) is a failure, whatever the status said.
    const QString problem =
        probes::transferProblem(answer, m_settings.timeoutMs, m_settings.maxBytes);
    if (answer.status == 0 || !problem.isEmpty()) {
        QueryResult result;
        result.error =
            QStringLiteral("Prometheus at %1: %2")
                .arg(serverName(), problem.isEmpty() ? QStringLiteral("no answer") : problem);
        Q_EMIT queryFinished(id, result);
        return;
    }
    Q_EMIT queryFinished(id, QueryResponseParser::parse(answer.body, answer.status, serverName()));
}

void PrometheusClient::failLater(quint64 id, const QString &text)
{
    QueryResult result;
    result.error = QStringLiteral("Prometheus at %1: %2").arg(serverName(), text);
    QTimer::singleShot(0, this, [this, id, result] { Q_EMIT queryFinished(id, result); });
}

} // namespace opsdeck::prometheus
