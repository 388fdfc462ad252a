#pragma once

#include "consolesession.h"

#include <QMainWindow>
#include <QPointer>
#include <memory>

class QComboBox;
class QLabel;
class QPushButton;
class QStackedWidget;
class QTabWidget;
class AuditTab;
class ClusterActionsBar;
class DecodeBatchPanel;
class WorkflowDialog;
class HostsTab;
class KnobsTab;
class SecretPrompt;
class LogDock;
class MetricsDashboard;
class ProbeLabPanel;
class ServicesPanel;
class StallBanner;

namespace opsdeck::history {
class HotWindow;
struct RangeResult;
} // namespace opsdeck::history
namespace opsdeck::logging {
class LogRelay;
}

/// The console: services at a glance, every metrics panel (MetricsDashboard),
/// banners for problems and active alerts, a status bar with the last refresh
/// time and where history goes, and the log dock. It is a view of one
/// session::ConsoleSession, which polls, records history, evaluates alerts,
/// runs the keep-alive watch and the demo cluster; the window keeps layout,
/// dialogs and forwarding. Closing the window in demo mode stops every
/// process the demo started before the window goes away. Markers of the
/// shown span are read from the database every 5 s and drawn on every chart.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// What the window shows: the models, history, alerts, hosts, the probe
    /// lab, the watch and the demo. Never null.
    opsdeck::session::ConsoleSession *session() const { return m_session; }
    /// Folder of the history database for inventories opened from now on
    /// (`--data-dir`); empty: AppPaths::dataDir(). Demo mode uses the demo folder.
    void setDataDir(const QString &dir) { m_session->setDataDir(dir); }
    /// Loads an inventory and watches its services; a bad file shows its
    /// errors (file:line:column) in the banner and the log, and the window
    /// keeps what it watched before.
    bool openInventory(const QString &path);
    /// Starts the demo cluster, then watches its inventory.
    void startDemo(const opsdeck::demo::DemoOptions &options);

    ServicesPanel *servicesPanel() const { return m_servicesPanel; }
    MetricsDashboard *dashboard() const { return m_dashboard; }
    DecodeBatchPanel *decodePanel() const;
    LogDock *logDock() const { return m_logDock; }
    /// Inventory problems, demo progress and active alerts, one per line;
    /// empty when no banner shows.
    QString bannerText() const;

    /// The status bar's history text ("recording history to …",
    /// "history recorded by pid N").
    QString historyStatus() const;
    /// The corrupt-history bar's text; empty while it is hidden.
    QString historyProblemText() const;
    /// Its "Move aside and start anew" button (HistoryWriter::moveAside).
    QPushButton *recoverHistoryButton() const { return m_recoverHistory; }
    /// Reads the markers of the shown span now (the timer does every 5 s).
    void refreshMarkers();

    /// The probe lab's tab; the stall banner shows whichever tab is current.
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

    /// SSH files and settings for inventories opened from now on (tests point
    /// them at a test sshd). The window adds the keychain with its password
    /// prompt (SshSecrets, SecretPrompt), the session the audit log.
    void setHostOptions(const opsdeck::hosts::HostConnections::Options &options);
    SecretPrompt *secretPrompt() const { return m_secretPrompt; }
    HostsTab *hostsTab() const { return m_hostsTab; }
    KnobsTab *knobsTab() const { return m_knobsTab; }
    AuditTab *auditTab() const { return m_auditTab; }
    ClusterActionsBar *clusterActionsBar() const { return m_clusterBar; }
    /// Opens the workflow dialog for `kind` on `cluster` (`service`: a
    /// restart's); the dialog shown, or nullptr while another one is open.
    WorkflowDialog *openWorkflow(const QString &kind, const QString &cluster,
                                 const QString &service = {});
    /// The workflow dialog open now, or nullptr.
    WorkflowDialog *workflowDialog() const;

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
    void connectSession();
    /// A batch of the poller's results into the status bar and the dashboard
    /// (the session's models took it already).
    void showAnswers(const opsdeck::probes::PollAnswers &answers);
    void showBanner(const QString &text, bool error);
    void showLoadErrors(const opsdeck::inventory::LoadResult &loaded);
    void showAlerts();
    void showHistoryStatus(const QString &status, const QString &detail);
    void showWatching();
    QWidget *buildHistoryProblemBar();
    void recoverHistory();
    void reloadInventory();
    void chooseInventory();
    /// Shows a workflow dialog (one at a time) and keeps the bars in step.
    WorkflowDialog *showWorkflowDialog(WorkflowDialog *dialog);
    // Past ranges (mainwindowhistory.cpp).
    void rangeLoaded(const opsdeck::history::RangeResult &result);

    std::unique_ptr<opsdeck::logging::LogRelay> m_logRelay;
    opsdeck::session::ConsoleSession *m_session;
    ServicesPanel *m_servicesPanel;
    MetricsDashboard *m_dashboard;
    ProbeLabPanel *m_probeLabPanel;
    HostsTab *m_hostsTab;
    KnobsTab *m_knobsTab;
    AuditTab *m_auditTab;
    ClusterActionsBar *m_clusterBar;
    QPointer<WorkflowDialog> m_workflowDialog;
    SecretPrompt *m_secretPrompt;
    QTabWidget *m_tabs;
    StallBanner *m_stallBanner;
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
    QWidget *m_historyProblem = nullptr;
    QLabel *m_historyProblemLabel = nullptr;
    QPushButton *m_recoverHistory = nullptr;
    qint64 m_rangeMs = 0; ///< span shown, ms; 0 live
    bool m_shutdownFinished = false;
};
