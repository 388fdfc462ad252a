#pragma once

#include "demosetup.h"
#include "hostconnections.h"
#include "inventory.h"
#include "marker.h"
#include "pollanswers.h"

#include <QObject>
#include <QSet>
#include <QTimer>
#include <memory>
#include <optional>

namespace opsdeck::alerts {
struct Alert;
class AlertCenter;
class AlertThread;
class DesktopNotifier;
} // namespace opsdeck::alerts
namespace opsdeck::history {
class HistoryRangeLoader;
class HistoryRecorder;
class HistoryStore;
class HistoryWriter;
class HotWindow;
} // namespace opsdeck::history
namespace opsdeck::probes {
struct Diagnosis;
class KeepAliveWatch;
class LoadHistory;
class PollerThread;
class ProbeLab;
class ServiceStatusModel;
} // namespace opsdeck::probes
namespace opsdeck::demo {
class DemoCluster;
}
namespace opsdeck::hosts {
class HostKeyAuditor;
}

namespace opsdeck::knobs {
class ServiceKnobs;
}
namespace opsdeck::probes {
class ProbeEngine;
}
namespace opsdeck::workflows {
class WorkflowSession;
}

namespace opsdeck::session {

/// Everything that watches one inventory, built the same way by the window,
/// `opsdeck-cli record` and the tests: the poller thread and the models it
/// feeds (service table, decode load, hot window), the history writer with
/// its lock and the recorder, the alert thread with de-duplicated desktop
/// notifications, host connections and their tunnels, the probe lab, the
/// keep-alive watch, and the demo cluster's lifecycle. The window only shows
/// what this object holds and forwards what a person asks for.
///
/// History: results go to the hot window (when there is one) and a writer on
/// `<data dir>/history.sqlite` (the demo's own folder in demo mode, as
/// `opsdeck-cli demo up`'s recorder). While another process holds the writer
/// lock this session does not write (historyStatus() says "history recorded
/// by pid N") and every 5 s it tries to take the lock again; the keep-alive
/// watch runs only while this session records (one watch per data dir), else
/// the recording process's diagnoses are read back from history.
///
/// Thread: one thread with an event loop (the GUI thread, or record's main
/// thread); every signal is emitted there. The destructor stops polling,
/// probing and alerting and flushes history; it does not wait for a demo
/// cluster's processes (call requestShutdown() first).
class ConsoleSession : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        /// Folder of the history database and audit log; empty:
        /// AppPaths::dataDir(). Demo mode uses the demo folder.
        QString dataDir;
        /// Evaluate the inventory's alert rules (AlertCenter, notifications).
        bool alerts = true;
        /// Send a desktop notification once per raised alert (needs `alerts`).
        bool notifications = true;
        /// Run the keep-alive watch while this session records history.
        bool watch = true;
        /// Keep a hot window of recent points for the charts, preloaded with
        /// the last hour of the database on opening it.
        bool hotWindow = true;
        /// Polling interval per service, ms; 0 keeps ServicePoller's default.
        int pollIntervalMs = 0;
        /// SSH files, the keychain decoration and so on for the inventory's
        /// hosts; the session adds the host-key auditor of `dataDir`.
        hosts::HostConnections::Options hostOptions;
    };

    explicit ConsoleSession(Options options, QObject *parent = nullptr);
    ~ConsoleSession() override;

    const Options &options() const { return m_options; }
    void setDataDir(const QString &dir) { m_options.dataDir = dir; }
    void setHostOptions(const hosts::HostConnections::Options &options)
    {
        m_options.hostOptions = options;
    }

    /// Loads an inventory and watches it: hosts and their tunnels first, then
    /// history, alerts, the probe lab and the watch, then polling. A bad file
    /// returns its errors (file:line:column) and keeps what was watched before.
    inventory::LoadResult openInventory(const QString &path);
    /// Watches `inventory` with its services already routed by the caller
    /// (opsdeck-cli's own tunnels; no host connections are made).
    void watchRouted(const inventory::Inventory &inventory);
    /// The inventory watched, as written; nullopt before one is open.
    const std::optional<inventory::Inventory> &inventory() const { return m_inventory; }
    QString inventoryPath() const { return m_inventory ? m_inventory->path : QString(); }

    // The models, for views and tests. Never null (hotWindow(): null when
    // Options::hotWindow is off).
    probes::ServiceStatusModel *statusModel() const { return m_statusModel; }
    probes::LoadHistory *loadHistory() const { return m_loadHistory; }
    history::HotWindow *hotWindow() const { return m_hotWindow; }
    history::HistoryRangeLoader *rangeLoader() const { return m_rangeLoader; }
    alerts::AlertCenter *alertCenter() const { return m_alertCenter; }
    probes::ProbeLab *probeLab() const { return m_probeLab; }
    probes::KeepAliveWatch *keepAliveWatch() const { return m_watch; }
    hosts::HostConnections *hostConnections() const { return m_hosts; }
    /// The Knobs tab's model: serve scripts of the open inventory's services,
    /// edits audited by the host-key auditor's thread, markers in history.
    knobs::ServiceKnobs *knobs() const { return m_knobs; }
    /// Restart, co-restart, restart-proxy, revert-knob and restore-knob on
    /// the open inventory: planned, guarded and run as `opsdeck-cli
    /// workflow` does, over this session's host transports and files,
    /// audited by the host-key auditor's log, journals and evidence in the
    /// history's folder (the demo's own in demo mode).
    workflows::WorkflowSession *workflows() const { return m_workflows; }
    /// The audit log this session writes (the data dir's audit.jsonl);
    /// empty before an inventory is open.
    QString auditLogPath() const;
    /// The poller's thread; null once stopped.
    probes::PollerThread *pollerThread() const { return m_poller.get(); }
    /// The writer of the open database; null before an inventory is open.
    history::HistoryWriter *historyWriter() const { return m_writer.get(); }
    /// Samples the recorder passed on since the database was opened.
    qint64 samplesRecorded() const;

    /// The history database in use; empty before an inventory is open.
    QString databasePath() const;
    /// True while this session writes history (it holds the writer lock).
    bool isRecordingHistory() const;
    /// "Recording history", "history recorded by pid N" or "history not
    /// recorded"; historyDetail() gives the path or the lock error.
    QString historyStatus() const { return m_historyStatus; }
    QString historyDetail() const { return m_historyDetail; }
    /// Markers recorded in the past `spanMs` (0: the hot window's span),
    /// newest-bounded at now + 1 min; read on this thread (one indexed query).
    QVector<history::Marker> markers(qint64 spanMs) const;
    /// Reads the watch's diagnoses from history when another process watches.
    void refreshRecordedDiagnoses();
    /// True once SQLite found the history database corrupt: nothing is
    /// recorded (and the lock not retried) until recoverHistory().
    bool isHistoryCorrupt() const;
    /// Moves the corrupt database aside (HistoryWriter::moveAside) and starts
    /// a new one; false with `error` (nothing moved). `movedTo` names it.
    bool recoverHistory(QString *movedTo, QString *error);

    /// Demo mode: writes the demo folder, starts its processes and watches
    /// their inventory (progress and the outcome come as signals).
    void startDemo(const demo::DemoOptions &options);
    bool isDemo() const { return m_demoState != DemoState::None; }
    /// True from requestShutdown() until every demo process has exited.
    bool isStoppingDemo() const { return m_demoState == DemoState::Stopping; }
    QString demoDir() const { return m_demoDir; }
    /// Asks to end the session. True: nothing is left running, the caller may
    /// go now. False: a demo cluster is starting or stopping; shutdownReady()
    /// follows once every process it started has exited.
    bool requestShutdown();
    /// Stops polling, probing and alerting and flushes history (the destructor
    /// does this too).
    void stop();

Q_SIGNALS:
    /// Every batch of the poller, after the session's models took it.
    void answered(const opsdeck::probes::PollAnswers &answers);
    /// The poller could not read a service's metrics page (text says why).
    void loadFailed(const QString &service, const QString &problem);
    /// A stall was diagnosed in `cluster` (the watch, the probe lab, or the
    /// recording process's watch read from history), or no longer stands.
    void stallDiagnosed(const QString &cluster, const opsdeck::probes::Diagnosis &diagnosis);
    void stallCleared(const QString &cluster);
    /// A marker was written, or the 5 s tick passed: markers may have changed.
    void markersChanged();
    void historyStatusChanged(const QString &status, const QString &detail);
    /// A history write failed; `error` names the file.
    void historyWriteFailed(const QString &error);
    /// The history database is corrupt: recording stopped (see isHistoryCorrupt()).
    void historyCorrupted(const QString &error);
    /// Demo lifecycle: a line of progress; the demo inventory is being
    /// watched; the start finished; every process exited (or not: `message`).
    void demoProgressed(const QString &line);
    void demoInventoryOpened(const inventory::LoadResult &result);
    void demoStarted(bool ok, const QString &detail);
    void shutdownReady(bool ok, const QString &message);

private:
    QString historyDir() const;
    /// The workflows' hosts, files, audit, markers and data dir for `inventory`.
    void setWorkflowContext(const inventory::Inventory &inventory);
    void openHistory(const QString &databasePath, bool reopen = false);
    void tryRecording();
    void setHistoryStatus(const QString &status, const QString &detail);
    /// Runs the watch when this session records (`restart`: anew, on the
    /// current inventory); else reads the recording process's diagnoses.
    void startOrFollowWatch(bool restart);
    void takeAnswers(const probes::PollAnswers &answers);
    void connectAlerts();
    void noteRaised(const alerts::Alert &alert);
    void noteCleared(const alerts::Alert &alert);

    Options m_options;
    std::unique_ptr<probes::PollerThread> m_poller;
    std::unique_ptr<alerts::AlertThread> m_alerts;
    std::unique_ptr<history::HistoryWriter> m_writer;
    std::unique_ptr<history::HistoryStore> m_store; ///< reads: preload, markers, diagnoses
    probes::ServiceStatusModel *m_statusModel;
    probes::LoadHistory *m_loadHistory;
    history::HotWindow *m_hotWindow = nullptr;
    history::HistoryRecorder *m_recorder = nullptr;
    history::HistoryRangeLoader *m_rangeLoader;
    alerts::AlertCenter *m_alertCenter;
    alerts::DesktopNotifier *m_notifier = nullptr;
    QSet<QString> m_notified; ///< alert keys sent to the notifier, until cleared
    probes::ProbeLab *m_probeLab;
    hosts::HostConnections *m_hosts;
    knobs::ServiceKnobs *m_knobs;
    std::unique_ptr<probes::ProbeEngine> m_workflowEngine; ///< the workflows' HTTP checks
    workflows::WorkflowSession *m_workflows;
    std::shared_ptr<hosts::HostKeyAuditor> m_auditor; ///< the open inventory's
    probes::KeepAliveWatch *m_watch;
    QTimer m_tick; ///< every 5 s: take the writer lock if free, read markers
    std::optional<inventory::Inventory> m_inventory;
    std::optional<inventory::Inventory> m_routed;
    QString m_historyStatus;
    QString m_historyDetail;
    demo::DemoCluster *m_demo = nullptr;
    QString m_demoDir;
    enum class DemoState
    {
        None,
        Starting,
        Running,
        Stopping,
        Stopped
    };
    DemoState m_demoState = DemoState::None;
    bool m_shutdownRequested = false;
};

} // namespace opsdeck::session
