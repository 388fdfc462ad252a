#include "servicepoller.h"

#include "boundedget.h"
#include "expositionparser.h"
#include "metricssampler.h"
#include "pagesummary.h"
#include "proxynetworks.h"
#include "secretstore.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QTimer>
#include <spdlog/spdlog.h>

namespace opsdeck::probes {

struct ServicePoller::Watched
{
    inventory::Service service;
    ServiceStatus status;
    bool healthInFlight = false;
    bool loadInFlight = false;
    bool watchLoad = false;
    bool loadsEndpointMissing = false; // learned: fall back to /metrics
    bool metricsInFlight = false;
    // Made at the first scrape (its window and kept pages are per service).
    std::unique_ptr<MetricsSampler> sampler;
    QString lastMetricsError; // logged once per change, not every second
    QElapsedTimer healthClock;
};

ServicePoller::ServicePoller(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<ServiceStatus>();
    qRegisterMetaType<LoadSample>();
    qRegisterMetaType<MetricsSnapshot>();
}

ServicePoller::~ServicePoller()
{
    qDeleteAll(m_watched);
}

void ServicePoller::setSettings(const Settings &settings)
{
    m_settings = settings;
    if (m_timer)
        m_timer->setInterval(settings.intervalMs);
    for (Watched *watched : std::as_const(m_watched)) {
        if (watched->sampler) {
            MetricsSampler::Settings sampling = watched->sampler->settings();
            sampling.windowMs = settings.quantileWindowMs;
            watched->sampler->setSettings(sampling);
        }
    }
}

void ServicePoller::setServices(const QVector<inventory::Service> &services)
{
    const quint64 call = ++m_servicesCall;
    QHash<QString, HttpRequestSettings> http = resolveHttp(services);
    if (call != m_servicesCall) {
        // A newer list arrived while this one's keys were being read, and is in place.
        for (HttpRequestSettings &settings : http)
            settings.wipe();
        return;
    }
    for (HttpRequestSettings &settings : m_http)
        settings.wipe();
    m_http = std::move(http);
    ++m_generation; // replies to the old list are dropped when they arrive
    qDeleteAll(m_watched);
    m_watched.clear();
    for (const auto &service : services) {
        auto *watched = new Watched;
        watched->service = service;
        watched->status = ServiceStatus::unchecked(service);
        watched->watchLoad =
            service.role == inventory::Role::Decode || service.role == inventory::Role::Engine;
        m_watched.append(watched);
    }
}

void ServicePoller::start()
{
    if (!m_network) {
        // Created here so that it lives in the poller's thread.
        m_network = new QNetworkAccessManager(this);
        // Proxies come from the inventory only, never from the environment.
        m_network->setProxy(QNetworkProxy::NoProxy);
        m_healthNetwork = new QNetworkAccessManager(this);
        m_healthNetwork->setProxy(QNetworkProxy::NoProxy);
        m_timer = new QTimer(this);
        connect(m_timer, &QTimer::timeout, this, &ServicePoller::pollNow);
    }
    m_timer->start(m_settings.intervalMs);
    pollNow();
}

void ServicePoller::stop()
{
    if (m_timer)
        m_timer->stop();
}

void ServicePoller::pollNow()
{
    if (!m_network)
        return;
    for (Watched *watched : std::as_const(m_watched)) {
        checkHealth(*watched);
        if (watched->watchLoad && m_settings.pollDecodeLoad)
            pollLoad(*watched);
        if (m_settings.pollMetrics)
            scrapeMetrics(*watched);
    }
}

QHash<QString, HttpRequestSettings>
ServicePoller::resolveHttp(const QVector<inventory::Service> &services)
{
    QHash<QString, HttpRequestSettings> http;
    for (const inventory::Service &service : services) {
        HttpRequestSettings settings;
        if (service.http.apiKeySecret.isEmpty()) {
            settings = HttpRequestSettings::withoutSecrets(service);
        } else {
            // QtKeychain runs in one thread only: the shared store's (the main thread).
            if (!m_secrets)
                m_secrets = &secrets::SecretStore::shared();
            settings = HttpRequestSettings::resolve(service, *m_secrets, std::chrono::seconds(10));
        }
        if (!settings.problem.isEmpty())
            spdlog::warn("{}", settings.problem.toStdString());
        http.insert(service.name, std::move(settings));
    }
    return http;
}

QNetworkReply *ServicePoller::get(const Watched &owner, const QUrl &url, qint64 maxBytes,
                                  bool freshConnection)
{
    const HttpRequestSettings settings = m_http.value(owner.service.name);
    if (!m_proxyNetworks)
        m_proxyNetworks = std::make_unique<ProxyNetworks>(this);
    QNetworkAccessManager &network = !settings.proxy.isEmpty()
                                         ? m_proxyNetworks->forProxy(settings.proxy)
                                     : freshConnection ? *m_healthNetwork
                                                       : *m_network;
    return boundedGet(network, url, settings, m_settings.timeoutMs, maxBytes, freshConnection);
}

void ServicePoller::checkHealth(Watched &watched)
{
    if (watched.healthInFlight)
        return;
    watched.healthInFlight = true;
    watched.healthClock.start();
    // A health answer is a status line and a few bytes; more is not read.
    // A proxy's or router's check goes on a fresh connection: "is it up" must
    // not depend on a kept-alive connection that it may stall (the incident's
    // fault); the probe lab measures reused connections on purpose. An
    // engine's check shares the kept-alive connection of its other polls, as
    // its router's requests do: a new TCP connection per engine per second is
    // most of the poller's cost with many engines.
    const auto role = watched.service.role;
    const bool fresh = role == inventory::Role::Proxy || role == inventory::Role::Router;
    QNetworkReply *reply = get(watched, watched.service.healthUrl(), 64 * 1024, fresh);
    const quint64 generation = m_generation;
    const QString name = watched.service.name;
    connect(reply, &QNetworkReply::finished, this,
            [this, generation, name, reply] { healthAnswered(generation, name, reply); });
}

ServicePoller::Watched *ServicePoller::find(quint64 generation, const QString &name) const
{
    if (generation != m_generation)
        return nullptr; // stale: the service list changed while it was in flight
    for (Watched *watched : m_watched)
        if (watched->service.name == name)
            return watched;
    return nullptr;
}

void ServicePoller::healthAnswered(quint64 generation, const QString &name, QNetworkReply *reply)
{
    reply->deleteLater();
    Watched *watched = find(generation, name);
    if (!watched)
        return;
    watched->healthInFlight = false;
    ServiceStatus &status = watched->status;
    const int httpStatus = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    // A status line followed by a broken body is not an answer: a 200 then a
    // closed connection is a service in trouble, never "healthy".
    const bool cut = replyCut(reply);
    const ServiceState next =
        cut ? ServiceState::Unhealthy : classifyHealth(status.state, httpStatus);
    status.latencyMs = static_cast<double>(watched->healthClock.nsecsElapsed()) / 1e6;
    status.httpStatus = httpStatus;
    status.detail =
        httpStatus == 0 || cut
            ? replyProblem(reply)
            : QStringLiteral("HTTP %1 %2")
                  .arg(httpStatus)
                  .arg(reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString());
    status.lastCheck = QDateTime::currentDateTimeUtc();
    if (next != status.state || !status.lastChange.isValid()) {
        if (status.lastChange.isValid() && m_settings.logTransitions)
            spdlog::info("{}: {} -> {} ({})", name.toStdString(),
                         stateName(status.state).toStdString(), stateName(next).toStdString(),
                         status.detail.toStdString());
        status.state = next;
        status.lastChange = status.lastCheck;
    }
    Q_EMIT statusChecked(status);
}

void ServicePoller::pollLoad(Watched &watched)
{
    if (watched.loadInFlight)
        return;
    if (watched.loadsEndpointMissing && !watched.service.hasMetrics()) {
        Q_EMIT loadFailed(watched.service.name,
                          QStringLiteral("no /v1/loads and metrics_path: none in the inventory"));
        return;
    }
    watched.loadInFlight = true;
    QUrl url = watched.service.metricsUrl();
    if (!watched.loadsEndpointMissing) {
        // Beside the base URL's own path prefix, as healthUrl() joins it.
        url = watched.service.url;
        QString base = url.path();
        while (base.endsWith(QLatin1Char('/')))
            base.chop(1);
        url.setPath(base + QStringLiteral("/v1/loads"));
    }
    QNetworkReply *reply = get(watched, url, m_settings.maxPageBytes);
    const quint64 generation = m_generation;
    const QString name = watched.service.name;
    connect(reply, &QNetworkReply::finished, this,
            [this, generation, name, reply] { loadAnswered(generation, name, reply); });
}

void ServicePoller::loadAnswered(quint64 generation, const QString &name, QNetworkReply *reply)
{
    reply->deleteLater();
    Watched *watched = find(generation, name);
    if (!watched)
        return;
    watched->loadInFlight = false;
    const int httpStatus = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray body = boundedBody(reply);
    const bool fromMetrics = watched->loadsEndpointMissing;
    std::optional<LoadSample> sample;
    QString failure;
    if (replyCut(reply)) {
        failure = replyProblem(reply); // a partial page could drop dp ranks from the sum
    } else if (httpStatus != 200) {
        if (!fromMetrics && (httpStatus == 404 || httpStatus == 405)) {
            watched->loadsEndpointMissing = true; // older servers: read the gauges instead
            pollLoad(*watched);
            return;
        }
        failure = httpStatus == 0 ? replyProblem(reply) : QStringLiteral("HTTP %1").arg(httpStatus);
    } else if (!fromMetrics) {
        sample = parseLoads(body);
        if (!sample) {
            watched->loadsEndpointMissing = true;
            pollLoad(*watched);
            return;
        }
    } else {
        const auto page = metrics::ExpositionParser::parse(
            std::string_view(body.constData(), static_cast<std::size_t>(body.size())));
        const auto summary = metrics::summarizePage(page);
        if (summary.running) {
            sample = LoadSample{};
            sample->running = *summary.running;
            sample->waiting = summary.waiting.value_or(0);
            sample->source = QStringLiteral("/metrics");
        } else {
            failure =
                QStringLiteral("%1 has no running-requests gauge (%2 warnings%3)")
                    .arg(watched->service.metricsUrl().path())
                    .arg(page.warnings.size())
                    .arg(page.warnings.empty()
                             ? QString()
                             : QStringLiteral(", first: line %1: %2")
                                   .arg(page.warnings.front().line)
                                   .arg(QString::fromStdString(page.warnings.front().reason)));
        }
    }
    if (!sample) {
        // Unreachable is already the health check's news; a bad page is not.
        if (httpStatus != 0)
            spdlog::warn("{}: decode load not read: {}", name.toStdString(), failure.toStdString());
        Q_EMIT loadFailed(name, failure);
        return;
    }
    sample->service = name;
    sample->timeMs = QDateTime::currentMSecsSinceEpoch();
    Q_EMIT loadSampled(*sample);
}

} // namespace opsdeck::probes

namespace opsdeck::probes {

void ServicePoller::scrapeMetrics(Watched &watched)
{
    // `metrics_path: none` in the inventory: a plain proxy has no page to read.
    if (watched.metricsInFlight || !watched.service.hasMetrics())
        return;
    watched.metricsInFlight = true;
    QNetworkReply *reply = get(watched, watched.service.metricsUrl(), m_settings.maxPageBytes);
    const quint64 generation = m_generation;
    const QString name = watched.service.name;
    connect(reply, &QNetworkReply::finished, this,
            [this, generation, name, reply] { metricsAnswered(generation, name, reply); });
}

void ServicePoller::metricsAnswered(quint64 generation, const QString &name, QNetworkReply *reply)
{
    reply->deleteLater();
    Watched *watched = find(generation, name);
    if (!watched)
        return;
    watched->metricsInFlight = false;
    if (!watched->sampler) {
        MetricsSampler::Settings sampling;
        sampling.windowMs = m_settings.quantileWindowMs;
        // The inventory's profile wins over detection (a page mixing engines).
        const metrics::Profile profile =
            metrics::EngineProfile::fromName(watched->service.profile.toStdString())
                .value_or(metrics::Profile::Auto);
        watched->sampler = std::make_unique<MetricsSampler>(name, profile, sampling);
    }
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const int httpStatus = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    QString problem;
    if (httpStatus != 0 && httpStatus != 200)
        problem = QStringLiteral("HTTP %1 %2")
                      .arg(httpStatus)
                      .arg(reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString())
                      .trimmed();
    else
        problem = replyProblem(reply); // timeout, too large, refused; cut mid-body too
    MetricsSnapshot snapshot;
    if (!problem.isEmpty()) {
        snapshot = watched->sampler->failed(
            QStringLiteral("%1 %2").arg(watched->service.metricsUrl().path(), problem), now);
    } else {
        const QByteArray body = boundedBody(reply);
        metrics::ParseOptions options;
        options.maxPageBytes = static_cast<std::size_t>(m_settings.maxPageBytes);
        options.contentType =
            reply->header(QNetworkRequest::ContentTypeHeader).toString().toStdString();
        const metrics::MetricPage page = metrics::ExpositionParser::parse(
            std::string_view(body.constData(), static_cast<std::size_t>(body.size())), options);
        snapshot = watched->sampler->sample(page, now);
    }
    if (snapshot.error != watched->lastMetricsError) {
        // Unreachable is already the health check's news; a bad page is not.
        if (!snapshot.error.isEmpty() && httpStatus != 0 && m_settings.logTransitions)
            spdlog::warn("{}", snapshot.error.toStdString());
        watched->lastMetricsError = snapshot.error;
    }
    Q_EMIT metricsSampled(snapshot);
}

} // namespace opsdeck::probes
