#include "batchcheck.h"

#include "batchcheckshared.h"
#include "probeengine.h"
#include "proberequestfactory.h"

#include <QDateTime>
#include <algorithm>
#include <chrono>

using namespace Qt::StringLiterals;

namespace opsdeck::probes {

namespace {

constexpr int maxRequests = 256; // the bound on concurrency
constexpr auto secretDeadline = std::chrono::seconds(5);

} // namespace

BatchCheck::BatchCheck(ProbeEngine &engine, inventory::Inventory inventory, QString cluster,
                       Settings settings, secrets::SecretStore *store)
    : m_engine(engine), m_inventory(std::move(inventory)), m_cluster(std::move(cluster)),
      m_settings(std::move(settings)), m_store(store), m_group(engine)
{
}

BatchCheck::~BatchCheck() = default;

void BatchCheck::setCallbacks(Callbacks callbacks)
{
    m_callbacks = std::move(callbacks);
}

void BatchCheck::cancel()
{
    m_group.cancel();
}

const ProbePath *BatchCheck::defaultPath(const QVector<ProbePath> &paths)
{
    for (const QString &name : {u"router direct"_s, u"via proxy"_s})
        for (const ProbePath &path : paths)
            if (path.name == name)
                return &path;
    return paths.isEmpty() ? nullptr : &paths.first();
}

QStringList BatchCheck::productionServices(const inventory::Inventory &inventory,
                                           const inventory::Cluster &cluster, const ProbePath *path)
{
    QStringList members =
        cluster.prefill + cluster.decode + QStringList{cluster.router, cluster.proxy};
    if (path)
        members += path->hops + QStringList{path->entryService};
    QStringList production;
    for (const QString &name : std::as_const(members)) {
        const inventory::Service *service = inventory.service(name);
        if (service && service->isProduction() && !production.contains(name))
            production << name;
    }
    return production;
}

QString BatchCheck::confirmationText(const inventory::Cluster &cluster, const QStringList &services)
{
    return u"cluster %1 has production services (%2): a batch check loads them with concurrent "
           "requests; confirm with the cluster's name \"%1\""_s.arg(cluster.name,
                                                                    services.join(u", "_s));
}

ProbeRequestFactory BatchCheck::factoryFor(const ProbePath &path) const
{
    return m_store ? ProbeRequestFactory::resolve(path, *m_store, secretDeadline)
                   : ProbeRequestFactory::withoutSecrets(path);
}

BatchCheckResult BatchCheck::run()
{
    BatchCheckResult result;
    result.cluster = m_cluster;
    result.n = m_settings.n;
    result.maxTokens = m_settings.maxTokens;
    result.startedAtMs = QDateTime::currentMSecsSinceEpoch();
    const inventory::Cluster *cluster = m_inventory.cluster(m_cluster);
    if (!cluster) {
        result.error = result.reason = u"no cluster %1 in %2"_s.arg(m_cluster, m_inventory.path);
        return result;
    }
    if (m_settings.n < 1 || m_settings.n > maxRequests) {
        result.error = result.reason =
            u"n %1 is out of range: 1 to %2 concurrent requests"_s.arg(m_settings.n)
                .arg(maxRequests);
        return result;
    }
    const QVector<ProbePath> paths = probePaths(m_inventory, *cluster);
    const ProbePath *path = defaultPath(paths);
    if (!m_settings.pathName.isEmpty()) {
        const auto it = std::find_if(paths.cbegin(), paths.cend(), [this](const ProbePath &p) {
            return p.name == m_settings.pathName;
        });
        path = it == paths.cend() ? nullptr : &*it;
    }
    if (!path) {
        result.error = result.reason = u"cluster %1 has no path named \"%2\""_s.arg(
            m_cluster, m_settings.pathName.isEmpty() ? u"router direct"_s : m_settings.pathName);
        return result;
    }
    result.path = path->name;
    result.entryService = path->entryService;
    const QStringList production = productionServices(m_inventory, *cluster, path);
    if (!production.isEmpty() && m_settings.confirmation != cluster->name) {
        result.confirmationRequired = true;
        result.error = result.reason = confirmationText(*cluster, production);
        return result;
    }
    ProbeRequestFactory entry = factoryFor(*path);
    if (!entry.problem().isEmpty()) {
        result.error = result.reason = entry.problem();
        result.pathFailed = true;
    } else if (runSingle(entry, result)) {
        runBatch(entry, paths, result);
        conclude(result);
    }
    entry.wipe();
    return result;
}

bool BatchCheck::runSingle(const ProbeRequestFactory &factory, BatchCheckResult &result)
{
    // One request at a time, through the group so that cancel() can end it.
    const auto ask = [this](ProbeRequest request) {
        request.timeoutMs = std::clamp(m_settings.singleTimeoutMs, 1, batchMaxDeadlineMs);
        return m_group.runOne(std::move(request));
    };

    const ProbeResult models = ask(factory.models(ConnectionMode::Fresh));
    if (models.ok())
        result.model = ChatApi::modelFromModels(models.body);
    if (m_group.isCancelled()) {
        result.cancelled = true;
        result.error = result.reason = u"cancelled"_s;
        return false;
    }
    if (result.model.isEmpty()) {
        const QString why = batchFailureOf(models);
        result.error = result.reason = u"%1: GET /v1/models gave no model%2"_s.arg(
            result.entryService, why.isEmpty() ? QString() : u" (%1)"_s.arg(why));
        result.pathFailed = true;
        result.timedOut = models.timedOut;
        return false;
    }
    const ProbeResult single =
        ask(factory.chat(ConnectionMode::Fresh, result.model, true, m_settings.maxTokens));
    if (m_group.isCancelled()) {
        result.cancelled = true;
        result.error = result.reason = u"cancelled"_s;
        return false;
    }
    const QString failure = batchFailureOf(single);
    if (!failure.isEmpty()) {
        result.error = result.reason =
            u"the single request through %1 failed: %2"_s.arg(result.path, failure);
        result.pathFailed = true;
        result.timedOut = single.timedOut; // timed_out says how the run ended, single included
        return false;
    }
    result.singleS = single.totalMs / 1000.0;
    if (m_callbacks.singleFinished)
        m_callbacks.singleFinished(result.singleS);
    return true;
}

} // namespace opsdeck::probes
