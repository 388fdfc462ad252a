#pragma once

#include "batchcheckresult.h"
#include "diagnosis.h"
#include "inventory.h"
#include "probelatencywindow.h"
#include "probepath.h"
#include "probetablemodel.h"
#include "verificationresult.h"

#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QVector>
#include <memory>
#include <optional>
#include <thread>

namespace opsdeck::history {
class HistoryWriter;
class HotWindow;
} // namespace opsdeck::history

namespace opsdeck::probes {

class ProbeEngine;

/// The probe lab behind the window (issue 4): keep-alive vs fresh probes per
/// path of one cluster, the stall diagnosis, the staged verification and the
/// batch check. Views read it and call it; everything that blocks runs here
/// on worker threads, and every result reaches the GUI thread as a queued call.
///
/// Probing (start/stop): ProbeRounds (`rounds` rounds, an `idleGapS` idle gap
/// before each reused probe) on a worker thread, which also resolves the API
/// keys (a blocking keychain read). Each result becomes a row of table(); from
/// round 1 on, fresh totals and reused totals on a kept connection (timeouts
/// included: a stall is at least the timeout; stale keep-alive replacements
/// and warm-ups excluded) go into the path's 1-minute ProbeLatencyWindow, and
/// its p50 and p99 are appended to the HotWindow (charts) and the
/// HistoryWriter (disk) as `(entry service, seriesKey(path, ...))` in ms.
/// When the diagnoser declares a stall, a "diagnosis" marker is added to the
/// history database (on the worker) and stallDiagnosed() is emitted; then the stall is
/// measured (Settings::measureStallS) and stallDiagnosed() comes again with its length.
///
/// Checks (runVerification / runBatchCheck): StagedVerification or BatchCheck
/// on a worker thread, their progress forwarded; the result is saved with
/// history::recordVerification / recordBatchCheck (a `checks` row and a marker).
/// A cluster with a production-tagged service needs `confirmation` equal to
/// its name (the models' guard decides; needsConfirmation() asks first).
///
/// Bounds: rounds 1..ProbeRounds::kMaxRounds, idle gap 0..600 s, batch N
/// 1..256; one probing run and one check at a time; stop() and cancelCheck()
/// end them within about a second, the destructor stops both and joins.
/// Thread: create and use on the GUI thread.
class ProbeLab : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        int rounds = 30;      ///< 1..ProbeRounds::kMaxRounds
        double idleGapS = 10; ///< before each round's reused probes, s, 0..600
        int timeoutMs = 0;    ///< per probe, ms; 0: ProbeRounds::defaultTimeoutMs(idleGapS)
        /// Once a stall is diagnosed, one reused probe with this deadline, s,
        /// measures how long it lasts (stallDiagnosed() again with stallS).
        double measureStallS = 300;
    };

    /// `hotWindow` receives the latency percentiles (it outlives the lab).
    explicit ProbeLab(history::HotWindow *hotWindow, QObject *parent = nullptr);
    ~ProbeLab() override;

    /// The clusters to choose from; the current one is kept when it still
    /// exists, else the first is chosen. Does not stop a running probe.
    void setInventory(const inventory::Inventory &inventory);
    /// Where the percentiles are recorded (may be nullptr: not recorded) and
    /// the history database markers and check rows go to (empty: none).
    void setHistory(history::HistoryWriter *writer, const QString &databasePath);
    QString databasePath() const { return m_databasePath; }

    QStringList clusterNames() const;
    /// Chooses the cluster probed and checked next; false when unknown.
    bool setCluster(const QString &name);
    QString cluster() const { return m_cluster; }
    /// The current cluster's probe paths, outermost first (probePaths()).
    const QVector<ProbePath> &paths() const { return m_paths; }

    /// `probe.<path>.<fresh|reused>_p<50|99>_ms`, the path's name in lower
    /// case with '_' for spaces ("probe.via_proxy.reused_p99_ms").
    static QString seriesKey(const QString &pathName, bool reused, int percentile);
    /// Beside each seriesKey in the hot window (not on disk): 1 when that
    /// percentile is a timed-out probe's deadline (a lower bound), else 0.
    static QString lowerBoundKey(const QString &seriesKey);

    ProbeTableModel *table() const { return m_table; }
    /// "Copy as curl" of table row `row` (curlCommandFor: no API key, ever);
    /// empty when out of range.
    QString curlCommand(int row) const;
    /// The 1-minute latencies of path `index` (nullptr when out of range).
    const ProbeLatencyWindow *latency(int index) const;

    // --- Probing
    bool start(const Settings &settings);
    void stop();
    bool isProbing() const { return m_probing; }
    int roundsDone() const { return m_roundsDone; }
    int roundsPlanned() const { return m_settings.rounds; }
    std::optional<Diagnosis> diagnosis() const { return m_diagnosis; }
    /// The stall banner's words: the headline, the evidence and the caution.
    static QString bannerText(const Diagnosis &diagnosis);

    // --- Checks
    /// Production-tagged services the checks would load (empty: none).
    QStringList productionServices() const;
    bool needsConfirmation() const { return !productionServices().isEmpty(); }
    /// The stages with their criteria, before they run.
    QVector<VerificationStage> plannedStages() const;
    bool runVerification(const QString &confirmation = {});
    bool runBatchCheck(int n, const QString &confirmation = {});
    void cancelCheck();
    bool isChecking() const { return m_checking; }

Q_SIGNALS:
    void clustersChanged();
    void probingChanged(bool probing);
    void roundFinished(int round, int rounds);
    /// A row was added to table() (also the latencies of its path changed).
    void probeAdded(int pathIndex);
    void stallDiagnosed(const opsdeck::probes::Diagnosis &diagnosis);
    /// A new start: the previous diagnosis no longer stands.
    void diagnosisCleared();
    /// A marker or a check row was written to the history database.
    void markerAdded();
    /// Something could not be done (no cluster, a path without its key...).
    void problemReported(const QString &text);

    void checkStarted(bool verification, int n);
    void stageStarted(int index, const opsdeck::probes::VerificationStage &stage);
    void stageFinished(int index, const opsdeck::probes::VerificationStage &stage);
    /// A running-requests sample of the batch: `timeMs` since the Unix epoch.
    void runningSampled(qint64 timeMs, double running);
    void batchProgressed(int finished, int n);
    void batchFinished(const opsdeck::probes::BatchCheckResult &result);
    void verificationFinished(const opsdeck::probes::VerificationResult &result);
    void checkFinished();

private:
    struct Job;
    struct PathState
    {
        ProbeLatencyWindow window;
    };
    // Worker-thread bodies (probelabjobs.cpp): they read only their arguments
    // and the engine, and reach this object through queued calls.
    void runRounds(const std::shared_ptr<Job> &job, const Settings &settings,
                   const QVector<ProbePath> &paths, const QString &databasePath);
    void runCheck(const std::shared_ptr<Job> &job, bool verification, int n,
                  const QString &confirmation, const inventory::Inventory &inventory,
                  const QString &cluster, const QString &databasePath);
    // GUI thread.
    void noteResult(int round, int pathIndex, const ProbeRow &row);
    void noteDiagnosis(const Diagnosis &diagnosis, bool recorded);
    void publish(int pathIndex, qint64 timeMs);
    bool startCheck(bool verification, int n, const QString &confirmation);
    void joinRounds();
    void joinCheck();

    std::unique_ptr<ProbeEngine> m_engine;
    QPointer<history::HotWindow> m_hotWindow;
    QPointer<history::HistoryWriter> m_writer;
    QString m_databasePath;
    std::optional<inventory::Inventory> m_inventory;
    QString m_cluster;
    QVector<ProbePath> m_paths;
    QVector<PathState> m_pathStates;
    ProbeTableModel *m_table;
    Settings m_settings;
    std::optional<Diagnosis> m_diagnosis;
    int m_roundsDone = 0;
    bool m_probing = false;
    bool m_checking = false;
    qint64 m_batchStartMs = 0;
    std::shared_ptr<Job> m_roundsJob;
    std::shared_ptr<Job> m_checkJob;
    std::thread m_roundsThread;
    std::thread m_checkThread;
};

} // namespace opsdeck::probes
