#pragma once

#include "demosetup.h"

#include <QMainWindow>
#include <memory>

class QLabel;
class DecodeBatchPanel;
class LogDock;
class ServicesPanel;

namespace opsdeck::probes {
class LoadHistory;
class PollerThread;
class ServiceStatusModel;
} // namespace opsdeck::probes
namespace opsdeck::workflows {
class DemoCluster;
}
namespace opsdeck::logging {
class LogRelay;
}

/// The console: services at a glance, the decode batch live, a banner for
/// problems, a status bar with the last refresh time, and the log dock.
/// Polling runs on its own thread (PollerThread); this window only shows.
/// In demo mode it owns the demo cluster and closing the window stops every
/// process it started before the window goes away.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Loads an inventory and watches its services; a bad file shows its
    /// errors (file:line:column) in the banner and the log, and the window
    /// keeps what it watched before.
    bool openInventory(const QString &path);
    /// Starts the demo cluster, then watches its inventory.
    void startDemo(const opsdeck::workflows::DemoOptions &options);

    opsdeck::probes::ServiceStatusModel *statusModel() const { return m_statusModel; }
    opsdeck::probes::LoadHistory *loadHistory() const { return m_loadHistory; }
    ServicesPanel *servicesPanel() const { return m_servicesPanel; }
    DecodeBatchPanel *decodePanel() const { return m_decodePanel; }
    LogDock *logDock() const { return m_logDock; }
    QString bannerText() const;

Q_SIGNALS:
    void demoStarted(bool ok, const QString &detail);
    /// The window may now be destroyed: every process it started has exited.
    void shutdownFinished();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildMenus();
    void showBanner(const QString &text, bool error);
    void reloadInventory();
    void chooseInventory();

    std::unique_ptr<opsdeck::logging::LogRelay> m_logRelay;
    std::unique_ptr<opsdeck::probes::PollerThread> m_poller;
    opsdeck::probes::ServiceStatusModel *m_statusModel;
    opsdeck::probes::LoadHistory *m_loadHistory;
    ServicesPanel *m_servicesPanel;
    DecodeBatchPanel *m_decodePanel;
    LogDock *m_logDock;
    QLabel *m_banner;
    QLabel *m_refreshLabel;
    opsdeck::workflows::DemoCluster *m_demo = nullptr;
    QString m_demoDir;
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
