#include "servicepoller.h"

#include "expositionparser.h"
#include "metricssampler.h"
#include "pagesummary.h"
#include "probeengine.h"
#include "secretstore.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QPointer>
#include <QTimer>
#include <mutex>
#include <spdlog/spdlog.h>
#include <utility>
#include <vector>

namespace opsdeck::probes {

namespace {
// A health answer is a status line and a few bytes; more is not read.
constexpr qint64 healthMaxBytes = 64 * 1024;

/// A status line followed by a broken body (closed early, cut at the size
/// limit or the deadline): not an answer, whatever the status said.
bool isCut(const ProbeResult &result)
{
    return result.status != 0 && !result.error.isEmpty();
}

} // namespace

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

// Answers cross from the engine's thread in batches: the engine finishes a
// round's answers together, and a queued event (with a wake-up of this
// thread) per answer cost more than reading the answers. The first answer
// into an empty mailbox posts one event; that event takes all there are.
struct ServicePoller::Mailbox
{
    struct Answer
    {
        quint64 generation;
        QString name;
        Answered answered;
        ProbeResult result;
    };
    std::mutex mutex;
    std::vector<Answer> answers; // guarded by mutex
    bool posted = false;         // guarded by mutex: an event to take them is on its way
};

ServicePoller::ServicePoller(QObject *parent)
    : QObject(parent), m_mailbox(std::make_shared<Mailbox>())
{
    qRegisterMetaType<ServiceStatus>();
    qRegisterMetaType<LoadSample>();
    qRegisterMetaType<MetricsSnapshot>();
    qRegisterMetaType<PollAnswers>();
}

ServicePoller::~ServicePoller()
{
    // First: its thread's last callbacks post to this object, which must still exist.
    m_engine.reset();
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
    if (!m_engine) {
        // Proxies come from the inventory only, never from the environment (ProbeRequest).
        m_engine = std::make_unique<ProbeEngine>();
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
    if (!m_engine)
        return;
    const ProbeEngine::Batch batch(*m_engine); // one wake-up of the engine per round
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

void ServicePoller::get(const Watched &owner, const QUrl &url, qint64 maxBytes, Answered answered,
                        bool freshConnection)
{
    const HttpRequestSettings settings = m_http.value(owner.service.name);
    const quint64 generation = m_generation;
    const QString name = owner.service.name;
    QPointer<ServicePoller> self(this);
    // Back on the poller's thread through the mailbox (see Mailbox); dropped
    // there when the service list changed meanwhile.
    const auto deliver = [self, mailbox = m_mailbox, generation, name,
                          answered](const ProbeResult &result) {
        std::lock_guard lock(mailbox->mutex);
        mailbox->answers.push_back({generation, name, answered, result});
        if (mailbox->posted)
            return;
        mailbox->posted = true;
        QMetaObject::invokeMethod(
            self.data(),
            [self] {
                if (self)
                    self->takeAnswers();
            },
            Qt::QueuedConnection);
    };
    if (!settings.problem.isEmpty()) {
        // Never sent without its key or with weaker trust: fails with the reason.
        ProbeResult refused;
        refused.url = url.adjusted(QUrl::RemoveUserInfo);
        refused.error = settings.problem;
        deliver(refused);
        return;
    }
    ProbeRequest request = settings.request(url, m_settings.timeoutMs, maxBytes);
    request.mode = freshConnection ? ConnectionMode::Fresh : ConnectionMode::Reused;
    m_engine->submit(std::move(request), deliver);
}

QString ServicePoller::unresponsiveDetail(const inventory::Service &service, const QString &problem)
{
    QString text = QStringLiteral("accepted the connection, %1").arg(problem);
    // A proxy's or router's health check is answered by what is behind it.
    if (service.role == inventory::Role::Proxy || service.role == inventory::Role::Router)
        text += QStringLiteral(": its health check is forwarded upstream, so the silence may be "
                               "upstream's (a pooled connection that stalls); see the probe lab "
                               "or `opsdeck-cli diagnose`");
    return text;
}

QString ServicePoller::problemOf(const Watched &owner, const ProbeResult &result,
                                 qint64 maxBytes) const
{
    const HttpRequestSettings settings = m_http.value(owner.service.name);
    if (!settings.problem.isEmpty() && result.error == settings.problem)
        return settings.problem;
    const QString problem =
        transferProblem(result, settings.effectiveTimeoutMs(m_settings.timeoutMs), maxBytes);
    // A TLS failure names the service: its `ca_file` or `verify_tls` is what to fix.
    return result.tlsFailed ? QStringLiteral("service %1: %2").arg(owner.service.name, problem)
                            : problem;
}

void ServicePoller::checkHealth(Watched &watched)
{
    if (watched.healthInFlight)
        return;
    watched.healthInFlight = true;
    watched.healthClock.start();
    // A proxy's or router's check goes on a fresh connection: "is it up" must
    // not depend on a kept-alive connection that it may stall (the incident's
    // fault); the probe lab measures reused connections on purpose. An
    // engine's check shares the kept-alive connection of its other polls, as
    // its router's requests do: a new TCP connection per engine per second is
    // most of the poller's cost with many engines.
    const auto role = watched.service.role;
    const bool fresh = role == inventory::Role::Proxy || role == inventory::Role::Router;
    get(watched, watched.service.healthUrl(), healthMaxBytes, &ServicePoller::healthAnswered,
        fresh);
}

void ServicePoller::takeAnswers()
{
    std::vector<Mailbox::Answer> answers;
    {
        std::lock_guard lock(m_mailbox->mutex);
        answers.swap(m_mailbox->answers);
        m_mailbox->posted = false;
    }
    for (const Mailbox::Answer &answer : answers)
        if (Watched *watched = find(answer.generation, answer.name))
            (this->*answer.answered)(*watched, answer.result);
    if (m_answers.isEmpty())
        return;
    const PollAnswers taken = std::exchange(m_answers, {});
    Q_EMIT answered(taken);
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

void ServicePoller::healthAnswered(Watched &watchedRef, const ProbeResult &result)
{
    Watched *watched = &watchedRef;
    const QString &name = watched->service.name;
    watched->healthInFlight = false;
    ServiceStatus &status = watched->status;
    const int httpStatus = result.status;
    // A status line followed by a broken body is not an answer: a 200 then a
    // closed connection is a service in trouble, never "healthy".
    const bool cut = isCut(result);
    const bool silent = acceptedWithoutAnswer(result);
    const ServiceState next =
        cut ? ServiceState::Unhealthy : classifyHealth(status.state, httpStatus, silent);
    status.latencyMs = static_cast<double>(watched->healthClock.nsecsElapsed()) / 1e6;
    status.httpStatus = httpStatus;
    status.detail = httpStatus == 0 || cut
                        ? problemOf(*watched, result, healthMaxBytes)
                        : QStringLiteral("HTTP %1 %2").arg(httpStatus).arg(result.reason);
    if (silent)
        status.detail = unresponsiveDetail(watched->service, status.detail);
    status.lastCheck = QDateTime::currentDateTimeUtc();
    if (next != status.state || !status.lastChange.isValid()) {
        if (status.lastChange.isValid() && m_settings.logTransitions)
            spdlog::info("{}: {} -> {} ({})", name.toStdString(),
                         stateName(status.state).toStdString(), stateName(next).toStdString(),
                         status.detail.toStdString());
        status.state = next;
        status.lastChange = status.lastCheck;
    }
    m_answers.statuses.append(status);
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
    get(watched, url, m_settings.maxPageBytes, &ServicePoller::loadAnswered);
}

void ServicePoller::loadAnswered(Watched &watchedRef, const ProbeResult &result)
{
    Watched *watched = &watchedRef;
    const QString name = watched->service.name;
    watched->loadInFlight = false;
    const int httpStatus = result.status;
    const QByteArray &body = result.body;
    const bool fromMetrics = watched->loadsEndpointMissing;
    std::optional<LoadSample> sample;
    QString failure;
    if (isCut(result)) {
        // a partial page could drop dp ranks from the sum
        failure = problemOf(*watched, result, m_settings.maxPageBytes);
    } else if (httpStatus != 200) {
        if (!fromMetrics && (httpStatus == 404 || httpStatus == 405)) {
            watched->loadsEndpointMissing = true; // older servers: read the gauges instead
            pollLoad(*watched);
            return;
        }
        failure = httpStatus == 0 ? problemOf(*watched, result, m_settings.maxPageBytes)
                                  : QStringLiteral("HTTP %1").arg(httpStatus);
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
    m_answers.loads.append(*sample);
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
    get(watched, watched.service.metricsUrl(), m_settings.maxPageBytes,
        &ServicePoller::metricsAnswered);
}

void ServicePoller::metricsAnswered(Watched &watchedRef, const ProbeResult &result)
{
    Watched *watched = &watchedRef;
    const QString name = watched->service.name;
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
    const int httpStatus = result.status;
    QString problem;
    if (httpStatus != 0 && httpStatus != 200)
        problem = QStringLiteral("HTTP %1 %2").arg(httpStatus).arg(result.reason).trimmed();
    else // timeout, too large, refused; cut mid-body too
        problem = problemOf(*watched, result, m_settings.maxPageBytes);
    MetricsSnapshot snapshot;
    if (!problem.isEmpty()) {
        snapshot = watched->sampler->failed(
            QStringLiteral("%1 %2").arg(watched->service.metricsUrl().path(), problem), now);
    } else {
        const QByteArray &body = result.body;
        metrics::ParseOptions options;
        options.maxPageBytes = static_cast<std::size_t>(m_settings.maxPageBytes);
        options.contentType = result.contentType.toStdString();
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
    m_answers.snapshots.append(snapshot);
    Q_EMIT metricsSampled(snapshot);
}

} // namespace opsdeck::probes
