#include "endtoendprobe.h"

#include "chatapi.h"
#include "probeengine.h"
#include "secretstore.h"
#include "servermessage.h"

#include <QDateTime>
#include <QTimer>
#include <algorithm>
#include <spdlog/spdlog.h>

using namespace Qt::StringLiterals;

namespace opsdeck::alerts {

namespace {

constexpr qsizetype maxErrorChars = 200;

} // namespace

EndToEndProbe::EndToEndProbe(QString cluster, inventory::Service entry, Settings settings,
                             QObject *parent)
    : QObject(parent), m_cluster(std::move(cluster)), m_entry(std::move(entry)),
      m_settings(settings)
{
    qRegisterMetaType<EndToEndResult>();
}

// The engine goes first: what it cancels reports back queued to this object,
// which drops it; then the key is wiped.
EndToEndProbe::~EndToEndProbe()
{
    m_engine.reset();
    m_http.wipe();
}

void EndToEndProbe::start()
{
    if (!m_engine) {
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
        m_engine = std::make_unique<probes::ProbeEngine>();
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
    return inventory::withPath(m_entry.url, path);
}

void EndToEndProbe::probeNow()
{
    if (!m_engine || m_inFlight)
        return;
    m_inFlight = true;
    if (!m_model.isEmpty()) {
        postChat();
        return;
    }
    send(m_http.request(endpoint(u"/v1/models"_s), m_settings.timeoutMs, m_settings.maxBytes),
         &EndToEndProbe::modelsAnswered);
}

void EndToEndProbe::send(probes::ProbeRequest request,
                         void (EndToEndProbe::*answered)(const probes::ProbeResult &))
{
    if (!m_http.problem.isEmpty()) {
        // Never sent without its key or with weaker trust: fails with the reason.
        probes::ProbeResult refused;
        refused.url = request.url.adjusted(QUrl::RemoveUserInfo);
        refused.error = m_http.problem;
        QTimer::singleShot(0, this, [this, answered, refused] { (this->*answered)(refused); });
        return;
    }
    m_engine->submit(std::move(request), [this, answered](const probes::ProbeResult &answer) {
        QMetaObject::invokeMethod(
            this, [this, answered, answer] { (this->*answered)(answer); }, Qt::QueuedConnection);
    });
}

QString EndToEndProbe::problemOf(const probes::ProbeResult &answer) const
{
    if (!m_http.problem.isEmpty() && answer.error == m_http.problem)
        return m_http.problem;
    // The engine's words for timeouts, size, TLS and answers cut after their
    // status line; the server's own for a status other than 200.
    const QString problem = probes::transferProblem(
        answer, m_http.effectiveTimeoutMs(m_settings.timeoutMs), m_settings.maxBytes);
    if (!problem.isEmpty())
        return problem.left(maxErrorChars);
    if (answer.status == 200)
        return {};
    if (answer.status == 0)
        return u"no answer"_s;
    const QString message = probes::serverMessage(answer.body);
    const QString text = message.isEmpty() ? u"HTTP %1"_s.arg(answer.status)
                                           : u"HTTP %1: %2"_s.arg(answer.status).arg(message);
    return text.left(maxErrorChars);
}

void EndToEndProbe::modelsAnswered(const probes::ProbeResult &answer)
{
    QString problem = problemOf(answer);
    if (problem.isEmpty()) {
        m_model = probes::ChatApi::modelFromModels(answer.body);
        if (m_model.isEmpty())
            problem = u"no model listed"_s;
    }
    if (!problem.isEmpty()) {
        EndToEndResult result;
        result.url = endpoint(u"/v1/chat/completions"_s).adjusted(QUrl::RemoveUserInfo);
        result.httpStatus = answer.status;
        result.error = u"GET /v1/models: "_s + problem;
        finish(result);
        return;
    }
    postChat();
}

void EndToEndProbe::postChat()
{
    probes::ProbeRequest request = m_http.request(endpoint(u"/v1/chat/completions"_s),
                                                  m_settings.timeoutMs, m_settings.maxBytes);
    request.kind = probes::ProbeKind::Chat;
    request.body = probes::ChatApi::body(m_model, false, 1);
    send(std::move(request), &EndToEndProbe::chatAnswered);
}

void EndToEndProbe::chatAnswered(const probes::ProbeResult &answer)
{
    EndToEndResult result;
    result.url = answer.url.adjusted(QUrl::RemoveUserInfo);
    result.ms = answer.totalMs;
    result.httpStatus = answer.status;
    result.model = m_model;
    result.error = problemOf(answer);
    if (result.error.isEmpty() && !probes::ChatApi::hasChoices(answer.body))
        result.error = u"HTTP 200 without a choices list"_s;
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
