#include "keepalivewatch.h"

#include "probeengine.h"
#include "probelabjob.h"

#include <algorithm>

namespace opsdeck::probes {

KeepAliveWatch::Settings KeepAliveWatch::settingsOf(const inventory::WatchSettings &watch)
{
    Settings settings;
    settings.intervalS = watch.intervalS;
    settings.idleGapS = watch.idleGapS;
    // A short startup gap, never longer than the steady one.
    settings.startupIdleGapS = std::min(settings.startupIdleGapS, watch.idleGapS);
    return settings;
}

KeepAliveWatch::KeepAliveWatch(QObject *parent)
    : QObject(parent), m_engine(std::make_unique<ProbeEngine>())
{
}

KeepAliveWatch::~KeepAliveWatch()
{
    stop();
}

QVector<ProbePath> KeepAliveWatch::watchedPaths(const inventory::Inventory &inventory,
                                                const inventory::Cluster &cluster)
{
    QVector<ProbePath> watched;
    for (const ProbePath &path : probePaths(inventory, cluster)) {
        const auto watchedService = [&inventory](const QString &name) {
            const inventory::Service *service = inventory.service(name);
            return !service || service->isWatched();
        };
        if (watchedService(path.entryService) &&
            std::all_of(path.hops.cbegin(), path.hops.cend(), watchedService))
            watched << path;
    }
    return watched;
}

void KeepAliveWatch::start(const inventory::Inventory &inventory)
{
    stop();
    m_inventory = inventory;
    m_diagnoses.clear();
    if (!inventory.watch.enabled)
        return;
    const Settings settings = m_override.value_or(settingsOf(inventory.watch));
    for (const inventory::Cluster &cluster : inventory.clusters) {
        const QVector<ProbePath> paths = watchedPaths(inventory, cluster);
        if (paths.isEmpty())
            continue;
        Worker worker;
        worker.run = std::make_shared<CancellableRun>();
        worker.thread = std::make_unique<threads::WorkerThread>(
            QStringLiteral("watch %1").arg(cluster.name),
            [this, run = worker.run, paths, name = cluster.name, settings, db = m_databasePath] {
                watchCluster(run, paths, name, settings, db);
            });
        m_workers.push_back(std::move(worker));
    }
}

void KeepAliveWatch::restart()
{
    if (m_inventory)
        start(*m_inventory);
}

void KeepAliveWatch::stop()
{
    for (Worker &worker : m_workers)
        worker.run->requestStop();
    for (Worker &worker : m_workers)
        worker.thread->stop();
    m_workers.clear();
}

std::optional<Diagnosis> KeepAliveWatch::diagnosis(const QString &cluster) const
{
    const auto it = m_diagnoses.constFind(cluster);
    return it == m_diagnoses.cend() ? std::nullopt : std::optional<Diagnosis>(*it);
}

void KeepAliveWatch::noteDiagnosis(const QString &cluster, const Diagnosis &diagnosis)
{
    m_diagnoses.insert(cluster, diagnosis);
    Q_EMIT stallDiagnosed(cluster, diagnosis);
}

void KeepAliveWatch::noteCleared(const QString &cluster, const QString &why)
{
    m_diagnoses.remove(cluster);
    Q_EMIT stallCleared(cluster, why);
}

} // namespace opsdeck::probes
