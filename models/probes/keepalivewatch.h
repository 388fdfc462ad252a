#pragma once

#include "diagnosis.h"
#include "inventory.h"
#include "probepath.h"
#include "workerthread.h"

#include <QHash>
#include <QObject>
#include <QStringList>
#include <memory>
#include <optional>
#include <vector>

namespace opsdeck::probes {

class ProbeEngine;
struct CancellableRun;

/// The background keep-alive watch (DESIGN "watch"): whenever an inventory is
/// open (the window, `opsdeck-cli record`), every path into each cluster —
/// via the proxy, the router directly, each engine directly — gets one fresh
/// and one reused probe after an idle gap, at a low rate, feeding the stall
/// diagnosis. No click is needed: a connection-scoped stall reaches the
/// banner, history markers and the `checks` table by itself.
///
/// Phases per cluster (one worker thread each, so clusters do not wait on
/// each other's timeouts):
/// - startup, on start() and restart() (after a workflow or a restart):
///   rounds back to back with a short idle gap and deadline until a stall is
///   declared or `startupRounds` rounds passed in which every path answered
///   (at most 4 x that many: services still starting say nothing), so a stall
///   already present is on screen within about a minute;
/// - steady: one round per `intervalS` (default 60 s), the kept connection
///   warmed and left idle `idleGapS` (default 10 s) before the reused probe;
///   probes time out at 3 x the idle gap (2..60 s).
/// A stall is declared as in the probe lab (StallDiagnoser: 3 stalling
/// rounds in a row). It is reported at once (stallDiagnosed), then measured
/// with one more reused probe with a long deadline (`measureDeadlineS`,
/// default 300 s, one at a time per path) and reported again with its length.
/// When the implicated path answers clear for 3 rounds in a row the stall is
/// reported cleared and the diagnosis starts over.
///
/// Load: per path and round 1 warm-up (steady only) + 2 tiny requests (chat
/// of max_tokens 8 where the entry serves one, else the health GET); services
/// tagged `no-watch` — and paths crossing them — are left out.
///
/// History (when a database path is set): a "diagnosis" marker per report and
/// per clear, and a `checks` row of kind "watch" ({"stall": {...} | null},
/// diagnosisToJson) so that a window that does not run the watch itself
/// (another process records) shows the recorder's diagnoses.
///
/// Thread: create and use on one thread with an event loop (the GUI thread,
/// record's main thread); signals are emitted there. The destructor stops and
/// joins the workers (within about a second: probes in flight are cancelled).
class KeepAliveWatch : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        double intervalS = 60; ///< steady: one round per this, s
        double idleGapS = 10;  ///< steady: the kept connection's idle before the reused probe, s
        int startupRounds = 3; ///< startup: rounds back to back (a stall needs 3)
        double startupIdleGapS = 2;    ///< startup: idle gap, s
        int startupTimeoutMs = 5'000;  ///< startup: per probe, ms (a longer wait counts as a stall)
        double measureDeadlineS = 300; ///< the measuring probe's deadline, s (0: do not measure)
    };
    /// The inventory's `watch:` section as settings (startup values are the defaults).
    static Settings settingsOf(const inventory::WatchSettings &watch);

    explicit KeepAliveWatch(QObject *parent = nullptr);
    ~KeepAliveWatch() override;

    /// History database for markers and `checks` rows; empty: none written.
    void setDatabasePath(const QString &path) { m_databasePath = path; }
    /// Replaces the settings taken from the inventory (tests: short gaps).
    void setSettingsOverride(std::optional<Settings> settings) { m_override = settings; }

    /// Stops any watch, then watches every cluster of `inventory` (services
    /// already routed through their tunnels) unless its `watch: enabled` is false.
    void start(const inventory::Inventory &inventory);
    /// Back to the startup phase (after a workflow or a restart).
    void restart();
    void stop();
    bool isRunning() const { return !m_workers.empty(); }

    /// The standing diagnosis of `cluster`; nullopt when none.
    std::optional<Diagnosis> diagnosis(const QString &cluster) const;
    /// The paths the watch probes in `cluster`: probePaths() less any path
    /// whose entry or hops are tagged `no-watch`.
    static QVector<ProbePath> watchedPaths(const inventory::Inventory &inventory,
                                           const inventory::Cluster &cluster);

Q_SIGNALS:
    /// A stall was diagnosed in `cluster`, or measured (then `diagnosis.stallS`
    /// or `stallLowerBoundS` is set).
    void stallDiagnosed(const QString &cluster, const opsdeck::probes::Diagnosis &diagnosis);
    /// No stall stands in `cluster` (`why`: cleared, or none seen at startup).
    void stallCleared(const QString &cluster, const QString &why);
    /// A round of `cluster` ended (`startup`: during the startup phase).
    void roundFinished(const QString &cluster, int round, bool startup);
    /// A marker or a check row was written to the history database.
    void markerAdded();

private:
    struct Worker
    {
        std::shared_ptr<CancellableRun> run;
        std::unique_ptr<threads::WorkerThread> thread;
    };
    // Worker thread (keepalivewatchrun.cpp): reads only its arguments.
    void watchCluster(const std::shared_ptr<CancellableRun> &run, const QVector<ProbePath> &paths,
                      const QString &cluster, const Settings &settings,
                      const QString &databasePath);
    // GUI thread.
    void noteDiagnosis(const QString &cluster, const Diagnosis &diagnosis);
    void noteCleared(const QString &cluster, const QString &why);

    std::unique_ptr<ProbeEngine> m_engine;
    std::optional<inventory::Inventory> m_inventory;
    std::optional<Settings> m_override;
    QString m_databasePath;
    std::vector<Worker> m_workers;
    QHash<QString, Diagnosis> m_diagnoses;
};

} // namespace opsdeck::probes
