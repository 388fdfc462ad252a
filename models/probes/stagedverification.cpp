#include "stagedverification.h"

#include "probeengine.h"
#include "proberequestfactory.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>

using namespace Qt::StringLiterals;
using Clock = std::chrono::steady_clock;

namespace opsdeck::probes {

namespace {

constexpr auto secretDeadline = std::chrono::seconds(5);

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// choices[0].message.content of a non-streamed chat completion.
QString chatContent(const QByteArray &body)
{
    const QJsonArray choices = QJsonDocument::fromJson(body).object().value(u"choices"_s).toArray();
    return choices.isEmpty() ? QString()
                             : choices.first()
                                   .toObject()
                                   .value(u"message"_s)
                                   .toObject()
                                   .value(u"content"_s)
                                   .toString();
}

QString outcomeOf(const ProbeResult &result)
{
    if (result.cancelled || !result.error.isEmpty() || result.status <= 0)
        return failureOf(result);
    // A refusal says why in the server's words, and how long it took.
    const QString answer = result.ok() ? u"HTTP %1"_s.arg(result.status) : failureOf(result);
    return u"%1 in %2 ms"_s.arg(answer).arg(result.totalMs, 0, 'f', 1);
}

} // namespace

struct StagedVerification::Shared
{
    std::mutex mutex;
    std::condition_variable cancelledChanged; // wakes the keep-alive stage's idle gap
    bool cancelled = false;
    BatchCheck *batch = nullptr; // stage 3's, while it runs
};

StagedVerification::StagedVerification(ProbeEngine &engine, inventory::Inventory inventory,
                                       QString cluster, Settings settings,
                                       secrets::SecretStore *store)
    : m_engine(engine), m_group(engine), m_inventory(std::move(inventory)),
      m_cluster(std::move(cluster)), m_settings(std::move(settings)), m_store(store),
      m_shared(std::make_shared<Shared>())
{
}

StagedVerification::~StagedVerification() = default;

void StagedVerification::setCallbacks(Callbacks callbacks)
{
    m_callbacks = std::move(callbacks);
}

QVector<VerificationStage> StagedVerification::plannedStages(const inventory::Inventory &inventory,
                                                             const inventory::Cluster &cluster,
                                                             const Settings &settings)
{
    VerificationStage health;
    health.name = u"health"_s;
    health.criterion =
        u"every service of cluster %1 answers GET on its health URL with 200"_s.arg(cluster.name);
    VerificationStage endToEnd;
    endToEnd.name = u"end-to-end"_s;
    endToEnd.criterion = u"one chat completion through the router answers 200 with non-empty "
                         "content"_s;
    VerificationStage batch;
    batch.name = u"batch-check"_s;
    batch.criterion =
        u"%1 concurrent chat completions (max_tokens %2) are BATCHED: peak decode running >= "
        "0.75 x N and at least 2x faster than one after another, none failing"_s
            .arg(settings.batch.n)
            .arg(settings.batch.maxTokens);
    if (!settings.keepAlive)
        return {health, endToEnd, batch};
    const QVector<ProbePath> paths = probePaths(inventory, cluster);
    const ProbePath *client = clientPath(paths, BatchCheck::defaultPath(paths));
    VerificationStage keepAlive;
    keepAlive.name = u"keep-alive"_s;
    keepAlive.criterion =
        u"through %1 (%2), the clients' path: a warm-up chat, %3 s idle, then a chat on the same "
        "kept-alive connection, and a fresh chat on this path, answer within 3 x the fastest fresh "
        "chat (this path's or the end-to-end stage's; at least 1 s more)"_s
            .arg(client ? client->name : u"the router"_s, client ? client->entryService : QString())
            .arg(settings.keepAliveIdleGapS, 0, 'g', 3);
    return {health, endToEnd, keepAlive, batch};
}

const ProbePath *StagedVerification::clientPath(const QVector<ProbePath> &paths,
                                                const ProbePath *fallback)
{
    for (const inventory::Role role : {inventory::Role::Proxy, inventory::Role::Router})
        for (const ProbePath &path : paths)
            if (path.entryRole == role)
                return &path;
    return fallback;
}

ProbeRequestFactory StagedVerification::factoryFor(const ProbePath &path) const
{
    return m_store ? ProbeRequestFactory::resolve(path, *m_store, secretDeadline)
                   : ProbeRequestFactory::withoutSecrets(path);
}

void StagedVerification::cancel()
{
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->cancelled = true;
        m_shared->cancelledChanged.notify_all();
        // Cancelling under the lock keeps run() from destroying the batch check meanwhile.
        if (m_shared->batch)
            m_shared->batch->cancel();
    }
    m_group.cancel();
}

bool StagedVerification::idle(double seconds)
{
    std::unique_lock lock(m_shared->mutex);
    return !m_shared->cancelledChanged.wait_for(lock, std::chrono::duration<double>(seconds),
                                                [this] { return m_shared->cancelled; });
}

QVector<ProbeResult> StagedVerification::runAll(QVector<ProbeRequest> requests)
{
    return m_group.runAll(std::move(requests)).results;
}

VerificationResult StagedVerification::run()
{
    VerificationResult result;
    result.cluster = m_cluster;
    result.keepAliveSkipped = !m_settings.keepAlive;
    result.startedAtMs = QDateTime::currentMSecsSinceEpoch();
    const Clock::time_point start = Clock::now();
    const inventory::Cluster *cluster = m_inventory.cluster(m_cluster);
    if (!cluster) {
        result.error = u"no cluster %1 in %2"_s.arg(m_cluster, m_inventory.path);
        return result;
    }
    result.stages = plannedStages(m_inventory, *cluster, m_settings);
    const QVector<ProbePath> paths = probePaths(m_inventory, *cluster);
    const ProbePath *path = BatchCheck::defaultPath(paths);
    if (!m_settings.batch.pathName.isEmpty())
        for (const ProbePath &p : paths)
            if (p.name == m_settings.batch.pathName)
                path = &p;
    const QStringList production = BatchCheck::productionServices(m_inventory, *cluster, path);
    if (!production.isEmpty() && m_settings.batch.confirmation != cluster->name) {
        result.confirmationRequired = true;
        result.error = BatchCheck::confirmationText(*cluster, production);
        return result;
    }
    if (!path) {
        result.error = u"cluster %1 has no service to send a chat completion to"_s.arg(m_cluster);
        return result;
    }

    for (int index = 0; index < result.stages.size(); ++index) {
        VerificationStage &stage = result.stages[index];
        if (m_callbacks.stageStarted)
            m_callbacks.stageStarted(index, stage);
        stage.ran = true;
        stage.startedAtMs = QDateTime::currentMSecsSinceEpoch();
        const Clock::time_point stageStart = Clock::now();
        if (stage.name == u"health")
            stage.passed = runHealth(*cluster, stage);
        else if (stage.name == u"end-to-end")
            stage.passed = runEndToEnd(*path, stage);
        else if (stage.name == u"keep-alive")
            stage.passed = runKeepAlive(*clientPath(paths, path), stage);
        else
            stage.passed = runBatchCheck(stage, result);
        stage.ms = msSince(stageStart);
        {
            std::lock_guard lock(m_shared->mutex);
            result.cancelled = m_shared->cancelled;
        }
        stage.cancelled = result.cancelled && !stage.passed;
        if (m_callbacks.stageFinished)
            m_callbacks.stageFinished(index, stage);
        if (!stage.passed || result.cancelled)
            break;
    }
    result.passed = !result.cancelled && result.failedStage() < 0 &&
                    std::all_of(result.stages.cbegin(), result.stages.cend(),
                                [](const VerificationStage &s) { return s.ran && s.passed; });
    result.ms = msSince(start);
    return result;
}

bool StagedVerification::runHealth(const inventory::Cluster &cluster, VerificationStage &stage)
{
    // Every member once, each through the path that enters at it (its URL,
    // health path, TLS and API key settings).
    QStringList members = cluster.prefill + cluster.decode;
    for (const QString &name : {cluster.router, cluster.proxy})
        if (!name.isEmpty())
            members << name;
    const QVector<ProbePath> paths = probePaths(m_inventory, cluster);
    QVector<ProbeRequest> requests;
    QStringList names;
    QStringList refused; // "name: why", members never asked (no key, weaker trust)
    for (const QString &name : std::as_const(members)) {
        const auto path = std::find_if(paths.cbegin(), paths.cend(),
                                       [&](const ProbePath &p) { return p.entryService == name; });
        if (path == paths.cend())
            continue;
        ProbeRequestFactory factory = factoryFor(*path);
        if (!factory.problem().isEmpty()) {
            // Never sent without its key: that member fails with the reason.
            refused << u"%1: %2"_s.arg(name, factory.problem());
            factory.wipe();
            continue;
        }
        ProbeRequest request = factory.health(ConnectionMode::Fresh);
        request.timeoutMs = m_settings.healthTimeoutMs;
        request.label = name;
        factory.wipe();
        requests.append(std::move(request));
        names.append(name);
    }
    const QVector<ProbeResult> results =
        requests.isEmpty() ? QVector<ProbeResult>() : runAll(std::move(requests));
    QStringList details = refused;
    bool passed = refused.isEmpty() && !results.isEmpty() && results.size() == names.size();
    for (qsizetype i = 0; i < results.size(); ++i) {
        passed = passed && results[i].status == 200 && results[i].error.isEmpty();
        details << u"%1: %2"_s.arg(names[i], outcomeOf(results[i]));
    }
    stage.detail = details.isEmpty() ? u"cancelled"_s : details.join(u"; "_s);
    return passed;
}

bool StagedVerification::runEndToEnd(const ProbePath &path, VerificationStage &stage)
{
    ProbeRequestFactory factory = factoryFor(path);
    factory.setTimeoutOverrideMs(m_settings.probeTimeoutMs);
    if (!factory.problem().isEmpty()) {
        stage.detail = factory.problem();
        return false;
    }
    const QVector<ProbeResult> models = runAll({factory.models(ConnectionMode::Fresh)});
    const QString model =
        models.isEmpty() ? QString() : ChatApi::modelFromModels(models.first().body);
    if (model.isEmpty()) {
        stage.detail = models.isEmpty() ? u"cancelled"_s
                                        : u"%1: GET /v1/models gave no model (%2)"_s.arg(
                                              path.entryService, outcomeOf(models.first()));
        factory.wipe();
        return false;
    }
    m_model = model;
    const QVector<ProbeResult> chat = runAll({factory.chat(ConnectionMode::Fresh, model)});
    factory.wipe();
    if (chat.isEmpty()) {
        stage.detail = u"cancelled"_s;
        return false;
    }
    const QString content = chatContent(chat.first().body);
    m_endToEndMs = chat.first().totalMs;
    stage.detail = u"%1 (%2), model %3: %4, %5 characters of content"_s
                       .arg(path.name, path.entryService, model, outcomeOf(chat.first()))
                       .arg(content.size());
    return chat.first().status == 200 && chat.first().error.isEmpty() && !content.isEmpty();
}

bool StagedVerification::runBatchCheck(VerificationStage &stage, VerificationResult &result)
{
    BatchCheck check(m_engine, m_inventory, m_cluster, m_settings.batch, m_store);
    check.setCallbacks(m_callbacks.batch);
    {
        std::lock_guard lock(m_shared->mutex);
        if (m_shared->cancelled) {
            stage.detail = u"cancelled"_s;
            return false;
        }
        m_shared->batch = &check;
    }
    result.batch = check.run();
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->batch = nullptr;
    }
    const BatchCheckResult &batch = result.batch;
    stage.detail = batch.verdict == BatchVerdict::None
                       ? batch.reason
                       : u"%1: %2"_s.arg(batchVerdictName(batch.verdict), batch.reason);
    return batch.verdict == BatchVerdict::Batched && batch.failures == 0;
}

} // namespace opsdeck::probes
