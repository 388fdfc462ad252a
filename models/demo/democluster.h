#pragma once

#include "demosetup.h"
#include "localtransport.h"
#include "processcontrol.h"

#include <QElapsedTimer>
#include <QLockFile>
#include <QObject>
#include <QTimer>
#include <memory>

namespace opsdeck::probes {
class HealthWait;
}

namespace opsdeck::demo {

/// The demo: a simulated PD cluster (prefill, decode, router, proxy) on this
/// machine, started through the local transport with the inventory's own
/// start commands, pid files and logs — the path a real host takes later.
///
/// up(): stops a demo still running in the same folder (replaced cleanly),
/// writes the folder, starts the services, waits until every one answers
/// 200 on its health URL (deadline `readyDeadlineMs`), then starts the
/// traffic generator and, when a recorder program is set, the history
/// recorder (`opsdeck-cli record`, pid file `DIR/recorder.pid`, log
/// `DIR/logs/recorder.log`, database `DIR/history.sqlite`), and finishes
/// once the recorder says it records (its log), failing with its log when
/// it exits first or is silent for 15 s (history would not be recorded).
/// On failure it stops what it started.
/// down(): stops every process of the demo in a folder and finishes only
/// when each has exited (SIGKILL after the grace period), the recorder too.
/// A folder whose inventory is missing while `run/` holds pid files is
/// refused by both (its services could not be stopped). One up() or down()
/// at a time per folder (`DIR/demo.lock`); a second fails at once naming it.
/// Thread: any thread with an event loop (the GUI thread); never blocks.
class DemoCluster : public QObject
{
    Q_OBJECT
public:
    explicit DemoCluster(QObject *parent = nullptr);
    ~DemoCluster() override;

    void setReadyDeadlineMs(int ms) { m_readyDeadlineMs = ms; }
    /// opsdeck-cli to run as the demo's history recorder; empty (the
    /// default): up() starts none (the console records through its own poller).
    void setRecorderProgram(const QString &path) { m_recorderProgram = path; }
    /// The recorder of the demo in `dir` as a managed process of its local
    /// host; `program` is the opsdeck-cli to run (only its file name matters
    /// for stopping).
    static processes::ManagedProcess recorderProcess(const QString &dir, const QString &program);
    void up(const DemoOptions &options);
    void down(const QString &dir);
    /// The inventory written by the last successful up().
    QString inventoryPath() const { return m_inventoryPath; }

Q_SIGNALS:
    void progressed(const QString &line);
    /// The demo folder and its inventory are written; services start next.
    void inventoryWritten(const QString &inventoryPath);
    /// On success `detail` is the inventory path; otherwise what went wrong.
    void upFinished(bool ok, const QString &detail);
    void downFinished(bool ok, const QString &message);

private:
    /// Services and traffic of the demo written in `dir`, or empty when
    /// there is none (no inventory, or one that does not load).
    QVector<processes::ManagedProcess> processesIn(const QString &dir, QString *problem) const;
    void startServices();
    /// File name of the sim binary: the demo's pids must be running it.
    QString simProgram() const;
    QVector<processes::ManagedProcess>
    processesOf(const QVector<inventory::Service> &services) const;
    void fail(const QString &message);
    /// "name: last lines of its log" for each named service, read from the
    /// demo folder (the demo's host is this machine).
    QString logTails(const QStringList &names) const;
    /// WaitingRecorder: done once the recorder's log says it records,
    /// failed once it stopped or the deadline passed.
    void checkRecorder();
    QString recorderLog() const;
    bool recorderRecords() const;
    void recorderReady();
    static constexpr int kRecorderDeadlineMs = 15000;

    remote::LocalTransport m_local;
    processes::ProcessControl m_control;
    probes::HealthWait *m_health = nullptr;
    QTimer *m_aliveTimer = nullptr; ///< while waiting for health (or the recorder): did it die?
    QElapsedTimer m_recorderWait;   ///< since the recorder was started
    qint64 m_recorderLogFrom = 0;   ///< its log's size then: what it says from there on
    DemoOptions m_options;
    QString m_inventoryPath;
    QString m_recorderProgram;
    QVector<inventory::Service> m_services;
    int m_readyDeadlineMs = 60000;
    enum class Phase
    {
        Idle,
        Replacing,
        Starting,
        WaitingHealthy,
        StartingTraffic,
        WaitingRecorder,
        Failing,
        Down
    };
    Phase m_phase = Phase::Idle;
    QString m_failure;
    /// `DIR/demo.lock`, held from up() or down() until it finishes: two runs
    /// on one folder would overwrite each other's pid files and orphan processes.
    std::unique_ptr<QLockFile> m_lock;
    bool lockFolder(const QString &dir, QString *error);
};

} // namespace opsdeck::demo
