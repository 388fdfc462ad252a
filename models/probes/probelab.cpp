#include "probelab.h"

#include "batchcheck.h"
#include "curlcommand.h"
#include "historywriter.h"
#include "hotwindow.h"
#include "probeengine.h"
#include "probelabjob.h"
#include "proberounds.h"
#include "stagedverification.h"

#include <QDateTime>
#include <algorithm>

namespace opsdeck::probes {

ProbeLab::ProbeLab(history::HotWindow *hotWindow, QObject *parent)
    : QObject(parent), m_engine(std::make_unique<ProbeEngine>()), m_hotWindow(hotWindow),
      m_table(new ProbeTableModel(this))
{
}

ProbeLab::~ProbeLab()
{
    // Workers post to this object and use the engine: both must outlive them.
    if (m_roundsJob)
        m_roundsJob->requestStop();
    if (m_checkJob)
        m_checkJob->requestStop();
    joinRounds();
    joinCheck();
}

void ProbeLab::joinRounds()
{
    if (m_roundsThread.joinable())
        m_roundsThread.join();
}

void ProbeLab::joinCheck()
{
    if (m_checkThread.joinable())
        m_checkThread.join();
}

void ProbeLab::setInventory(const inventory::Inventory &inventory)
{
    m_inventory = inventory;
    const QStringList names = clusterNames();
    const QString keep = names.contains(m_cluster) ? m_cluster : names.value(0);
    m_cluster.clear();
    if (!keep.isEmpty())
        setCluster(keep);
    else
        m_paths.clear();
    Q_EMIT clustersChanged();
}

void ProbeLab::setHistory(history::HistoryWriter *writer, const QString &databasePath)
{
    m_writer = writer;
    m_databasePath = databasePath;
}

QStringList ProbeLab::clusterNames() const
{
    QStringList names;
    if (m_inventory)
        for (const inventory::Cluster &cluster : m_inventory->clusters)
            names << cluster.name;
    return names;
}

bool ProbeLab::setCluster(const QString &name)
{
    const inventory::Cluster *cluster = m_inventory ? m_inventory->cluster(name) : nullptr;
    if (!cluster)
        return false;
    if (name == m_cluster)
        return true;
    m_cluster = name;
    m_paths = probePaths(*m_inventory, *cluster);
    m_pathStates = QVector<PathState>(m_paths.size());
    return true;
}

QString ProbeLab::seriesKey(const QString &pathName, bool reused, int percentile)
{
    QString slug = pathName.toLower();
    slug.replace(QLatin1Char(' '), QLatin1Char('_'));
    return QStringLiteral("probe.%1.%2_p%3_ms")
        .arg(slug, reused ? QStringLiteral("reused") : QStringLiteral("fresh"))
        .arg(percentile);
}

QString ProbeLab::lowerBoundKey(const QString &seriesKey)
{
    return seriesKey + QStringLiteral("_lower_bound");
}

QString ProbeLab::curlCommand(int row) const
{
    if (row < 0 || row >= m_table->rowCount())
        return {};
    return curlCommandFor(m_table->row(row).request);
}

const ProbeLatencyWindow *ProbeLab::latency(int index) const
{
    return index >= 0 && index < m_pathStates.size() ? &m_pathStates[index].window : nullptr;
}

bool ProbeLab::start(const Settings &settings)
{
    if (m_probing || !m_inventory || m_paths.isEmpty()) {
        if (!m_probing)
            Q_EMIT problemReported(
                m_cluster.isEmpty()
                    ? QStringLiteral("no cluster to probe")
                    : QStringLiteral("cluster %1 has no probe path").arg(m_cluster));
        return false;
    }
    joinRounds(); // the last run posted its end: its thread has returned or is returning
    m_settings = settings;
    m_settings.rounds = std::clamp(settings.rounds, 1, ProbeRounds::kMaxRounds);
    m_settings.idleGapS = std::clamp(settings.idleGapS, 0.0, ProbeRounds::kMaxIdleGapS);
    m_roundsDone = 0;
    m_diagnosis.reset();
    m_pathStates = QVector<PathState>(m_paths.size());
    Q_EMIT diagnosisCleared();
    m_probing = true;
    Q_EMIT probingChanged(true);
    auto job = std::make_shared<Job>();
    m_roundsJob = job;
    m_roundsThread = std::thread([this, job, s = m_settings, paths = m_paths, db = m_databasePath] {
        runRounds(job, s, paths, db);
    });
    return true;
}

void ProbeLab::stop()
{
    if (m_roundsJob)
        m_roundsJob->requestStop();
}

void ProbeLab::noteResult(int round, int pathIndex, const ProbeRow &row)
{
    m_table->append(row);
    if (pathIndex < 0 || pathIndex >= m_pathStates.size() || round < 1)
        return; // the model lookup and the warm-ups are not latency samples
    const ProbeResult &r = row.result;
    if (r.cancelled || !(r.ok() || r.timedOut))
        return;
    ProbeLatencyWindow &window = m_pathStates[pathIndex].window;
    if (r.mode == ConnectionMode::Fresh)
        window.addFresh(r.startedAtMs, r.totalMs, r.timedOut);
    else if (!r.staleKeepAlive && (r.connectionReused || r.timedOut))
        window.addReused(r.startedAtMs, r.totalMs, r.timedOut);
    else
        return;
    publish(pathIndex, r.startedAtMs + qint64(r.totalMs));
    Q_EMIT probeAdded(pathIndex);
}

void ProbeLab::publish(int pathIndex, qint64 timeMs)
{
    const ProbePath &path = m_paths[pathIndex];
    const ProbeLatencyWindow &window = m_pathStates[pathIndex].window;
    for (const bool reused : {false, true})
        for (const int percentile : {50, 99}) {
            const double q = percentile / 100.0;
            const double ms = reused ? window.reusedPercentile(q) : window.freshPercentile(q);
            if (ms < 0)
                continue;
            const QString key = seriesKey(path.name, reused, percentile);
            const bool bound = reused ? window.reusedPercentileIsLowerBound(q)
                                      : window.freshPercentileIsLowerBound(q);
            if (m_hotWindow) {
                m_hotWindow->append(path.entryService, key, timeMs, ms);
                m_hotWindow->append(path.entryService, lowerBoundKey(key), timeMs, bound ? 1 : 0);
            }
            if (m_writer)
                m_writer->append(path.entryService, key, QStringLiteral("ms"), timeMs, ms);
        }
}

void ProbeLab::noteDiagnosis(const Diagnosis &diagnosis, bool recorded)
{
    m_diagnosis = diagnosis;
    Q_EMIT stallDiagnosed(diagnosis);
    if (recorded)
        Q_EMIT markerAdded();
}

QString ProbeLab::bannerText(const Diagnosis &diagnosis)
{
    QString headline = diagnosis.headline();
    if (!headline.isEmpty())
        headline[0] = headline[0].toUpper();
    return QStringLiteral("%1.\nEvidence: %2\n%3")
        .arg(headline, diagnosis.evidence, diagnosis.caution);
}

QStringList ProbeLab::productionServices() const
{
    const inventory::Cluster *cluster = m_inventory ? m_inventory->cluster(m_cluster) : nullptr;
    if (!cluster)
        return {};
    return BatchCheck::productionServices(*m_inventory, *cluster, BatchCheck::defaultPath(m_paths));
}

QVector<VerificationStage> ProbeLab::plannedStages() const
{
    const inventory::Cluster *cluster = m_inventory ? m_inventory->cluster(m_cluster) : nullptr;
    if (!cluster)
        return {};
    return StagedVerification::plannedStages(*m_inventory, *cluster,
                                             StagedVerification::Settings());
}

bool ProbeLab::runVerification(const QString &confirmation)
{
    return startCheck(true, 16, confirmation);
}

bool ProbeLab::runBatchCheck(int n, const QString &confirmation)
{
    return startCheck(false, n, confirmation);
}

bool ProbeLab::startCheck(bool verification, int n, const QString &confirmation)
{
    if (m_checking || !m_inventory || m_cluster.isEmpty())
        return false;
    joinCheck();
    m_checking = true;
    m_batchStartMs = 0;
    n = std::clamp(n, 1, 256);
    Q_EMIT checkStarted(verification, n);
    auto job = std::make_shared<Job>();
    m_checkJob = job;
    m_checkThread = std::thread([this, job, verification, n, confirmation, inventory = *m_inventory,
                                 cluster = m_cluster, db = m_databasePath] {
        runCheck(job, verification, n, confirmation, inventory, cluster, db);
    });
    return true;
}

void ProbeLab::cancelCheck()
{
    if (m_checkJob)
        m_checkJob->requestStop();
}

} // namespace opsdeck::probes
