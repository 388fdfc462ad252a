#pragma once

#include "demosetup.h"
#include "hostconnections.h"
#include "inventory.h"
#include "pollanswers.h"
#include "rangeresult.h"

#include <QMainWindow>
#include <QSet>
#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QStackedWidget;
class QTabWidget;
class QTimer;
class DecodeBatchPanel;
class HostsTab;
class SecretPrompt;
class LogDock;
class MetricsDashboard;
class ProbeLabPanel;
class ServicesPanel;
class StallBanner;

namespace opsdeck::alerts {
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
class LoadHistory;
class PollerThread;
class KeepAliveWatch;
class ProbeLab;
class ServiceStatusModel;
} // namespace opsdeck::probes
namespace opsdeck::demo {
class DemoCluster;
}
namespace opsdeck::logging {
class LogRelay;
}

/// The console: services at a glance, every metrics panel (MetricsDashboard),
/// banners for problems and active alerts, a status bar with the last refresh
/// time and where history goes, and the log dock. Polling, alert evaluation,
/// history writing and range reads run off the GUI thread (models/); this
/// window only shows. In demo mode it owns the demo cluster and closing the
/// window stops every process it started before the window goes away.
///
/// History: the poller's results go to a HotWindow (the charts) and a
/// HistoryWriter on `<data dir>/history.sqlite` (the demo's own folder in
/// demo mode, as `opsdeck-cli demo up`'s recorder). When another process
/// holds the writer lock the window does not write: the status bar says
/// "history recorded by pid N", the hot window still fills live, and every
/// 5 s the window tries to take the lock again. On opening a database the
/// window preloads its last hour into the hot window, so charts show it at
/// once after a restart. Markers of the shown span are read from the
/// database every 5 s and drawn on every chart.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Folder of the history database for inventories opened from now on
    /// (`--data-dir`); empty: AppPaths::dataDir(). Demo mode uses the demo folder.
    void setDataDir(const QString &dir) { m_dataDir = dir; }
    /// Loads an inventory and watches its services; a bad file shows its
    /// errors (file:line:column) in the banner and the log, and the window
    /// keeps what it watched before.
    bool openInventory(const QString &path);
    /// Starts the demo cluster, then watches its inventory.
    void startDemo(const opsdeck::demo::DemoOptions &options);

    opsdeck::probes::ServiceStatusModel *statusModel() const { return m_statusModel; }
    opsdeck::probes::LoadHistory *loadHistory() const { return m_loadHistory; }
    ServicesPanel *servicesPanel() const { return m_servicesPanel; }
    MetricsDashboard *dashboard() const { return m_dashboard; }
    DecodeBatchPanel *decodePanel() const;
    LogDock *logDock() const { return m_logDock; }
    opsdeck::history::HotWindow *hotWindow() const { return m_hotWindow; }
    opsdeck::alerts::AlertCenter *alertCenter() const { return m_alertCenter; }
    /// Inventory problems, demo progress and active alerts, one per line;
    /// empty when no banner shows.
    QString bannerText() const;

    /// The history database in use; empty before an inventory is open.
    QString databasePath() const;
    /// True while this window writes history (it holds the writer lock).
    bool isRecordingHistory() const;
    /// The status bar's history text ("recording history to …",
    /// "history recorded by pid N").
    QString historyStatus() const;
    /// Reads the markers of the shown span now (the timer does every 5 s).
    void refreshMarkers();

    /// The probe lab (issue 4): its model, its tab, and the stall banner,
    /// which shows whichever tab is current.
    opsdeck::probes::ProbeLab *probeLab() const { return m_probeLab; }
    /// The background keep-alive watch (runs while this window records history).
    opsdeck::probes::KeepAliveWatch *keepAliveWatch() const { return m_watch; }
    ProbeLabPanel *probeLabPanel() const { return m_probeLabPanel; }
    QTabWidget *tabs() const { return m_tabs; }
    void showProbeLab();
    /// The stall banner's text; empty while it is hidden.
    QString stallBannerText() const;
    /// The plaintext-secrets warning (SecretsBanner); empty while it is hidden
    /// (the fallback is off in opsdeck.conf).
    QString secretsBannerText() const;

    /// "History range" choices: 0 (live) or a span in ms ending now.
    QComboBox *rangeSelector() const { return m_rangeBox; }
    /// Shows the past `spanMs` (0: live) read through HistoryRangeLoader.
    void showHistoryRange(qint64 spanMs);
    /// The dashboard of the last range loaded, nullptr while live.
    MetricsDashboard *rangeDashboard() const { return m_rangeDashboard; }
    /// The points of the last range loaded (the range dashboard's source).
    opsdeck::history::HotWindow *rangeWindow() const { return m_rangeWindow; }
    bool isShowingRange() const;

    /// Every inventory host's transport, connection state and tunnels
    /// (issue 5); the Hosts tab shows them. Host-key decisions go to
    /// `<data dir>/audit.jsonl`.
    opsdeck::hosts::HostConnections *hostConnections() const { return m_hosts; }
    /// SSH files and settings for inventories opened from now on (tests point
    /// them at a test sshd). The window adds the audit log and the keychain
    /// with its password prompt (SshSecrets, SecretPrompt) to them.
    void setHostOptions(const opsdeck::hosts::HostConnections::Options &options)
    {
        m_hostOptions = options;
    }
    SecretPrompt *secretPrompt() const { return m_secretPrompt; }
    HostsTab *hostsTab() const { return m_hostsTab; }

Q_SIGNALS:
    void demoStarted(bool ok, const QString &detail);
    /// The window may now be destroyed: every process it started has exited.
    void shutdownFinished();
    /// A history range was read (or not: `error` names the server or file).
    void historyRangeLoaded(bool ok, const QString &error);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildMenus();
    QWidget *buildRangeBar();
    void connectPoller();
    /// A batch of the poller's results into the services table, the hosts
    /// tab, the load history and the dashboard.
    void showAnswers(const opsdeck::probes::PollAnswers &answers);
    void showBanner(const QString &text, bool error);
    void showAlerts();
    void connectProbeLab();
    void connectWatch();
    /// Runs the watch when this window records history (`restart`: anew, on
    /// the current inventory); else shows the diagnoses the recording
    /// process's watch wrote (`watch` check rows).
    void startOrFollowWatch(bool restart);
    void showRecordedDiagnoses();
    void reloadInventory();
    void chooseInventory();
    // History (mainwindowhistory.cpp).
    QString historyDir() const;
    void openHistory(const QString &databasePath);
    void tryRecording();
    void rangeLoaded(const opsdeck::history::RangeResult &result);
    void stopBackgroundWork();

    std::unique_ptr<opsdeck::logging::LogRelay> m_logRelay;
    std::unique_ptr<opsdeck::probes::PollerThread> m_poller;
    std::unique_ptr<opsdeck::alerts::AlertThread> m_alerts;
    std::unique_ptr<opsdeck::history::HistoryWriter> m_writer;
    std::unique_ptr<opsdeck::history::HistoryStore> m_store; ///< reads: preload, markers
    opsdeck::probes::ServiceStatusModel *m_statusModel;
    opsdeck::probes::LoadHistory *m_loadHistory;
    opsdeck::history::HotWindow *m_hotWindow;
    opsdeck::history::HistoryRecorder *m_recorder = nullptr;
    opsdeck::history::HistoryRangeLoader *m_rangeLoader;
    opsdeck::alerts::AlertCenter *m_alertCenter;
    opsdeck::alerts::DesktopNotifier *m_notifier;
    QSet<QString> m_notified; ///< alert keys sent to the notifier, until cleared
    ServicesPanel *m_servicesPanel;
    MetricsDashboard *m_dashboard;
    opsdeck::probes::ProbeLab *m_probeLab;
    ProbeLabPanel *m_probeLabPanel;
    opsdeck::hosts::HostConnections *m_hosts;
    HostsTab *m_hostsTab;
    opsdeck::hosts::HostConnections::Options m_hostOptions;
    SecretPrompt *m_secretPrompt;
    QTabWidget *m_tabs;
    StallBanner *m_stallBanner;
    opsdeck::probes::KeepAliveWatch *m_watch;
    QLabel *m_secretsBanner = nullptr;
    MetricsDashboard *m_rangeDashboard = nullptr;
    opsdeck::history::HotWindow *m_rangeWindow = nullptr;
    QStackedWidget *m_dashboards;
    QComboBox *m_rangeBox = nullptr;
    QLabel *m_rangeLabel = nullptr;
    LogDock *m_logDock;
    QLabel *m_banner;
    QLabel *m_alertBanner;
    QLabel *m_refreshLabel;
    QLabel *m_historyLabel;
    QTimer *m_markerTimer;
    std::optional<opsdeck::inventory::Inventory> m_inventory;
    qint64 m_rangeMs = 0; ///< span shown, ms; 0 live
    opsdeck::demo::DemoCluster *m_demo = nullptr;
    QString m_demoDir;
    QString m_dataDir;
    QString m_inventoryPath;
    enum class DemoState
    {
        None,
        Starting,
        Running,
        Stopping,
        Stopped
    };
    DemoState m_demoState = DemoState::None;
    bool m_closeRequested = false;
};
