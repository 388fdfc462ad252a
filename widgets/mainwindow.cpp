#include "mainwindow.h"

#include "decodebatchpanel.h"
#include "democluster.h"
#include "loadhistory.h"
#include "logdock.h"
#include "logrelay.h"
#include "pollerthread.h"
#include "servicespanel.h"
#include "servicestatusmodel.h"

#include <QCloseEvent>
#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QStatusBar>
#include <QVBoxLayout>
#include <spdlog/spdlog.h>

using namespace opsdeck;

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_logRelay(std::make_unique<logging::LogRelay>()),
      m_poller(std::make_unique<probes::PollerThread>()),
      m_statusModel(new probes::ServiceStatusModel(this)),
      m_loadHistory(new probes::LoadHistory(this)),
      m_servicesPanel(new ServicesPanel(m_statusModel)),
      m_decodePanel(new DecodeBatchPanel(m_loadHistory)), m_logDock(new LogDock(this)),
      m_banner(new QLabel), m_refreshLabel(new QLabel)
{
    setWindowTitle(QStringLiteral("OpsDeck"));
    resize(1180, 760);

    m_banner->setWordWrap(true);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->setContentsMargins(10, 6, 10, 6);
    m_banner->setAutoFillBackground(true);
    m_banner->hide();

    auto *central = new QWidget;
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(10, 10, 10, 6);
    layout->setSpacing(10);
    layout->addWidget(m_banner);
    layout->addWidget(m_servicesPanel);
    layout->addWidget(m_decodePanel, 1);
    setCentralWidget(central);

    m_logDock->setAllowedAreas(Qt::BottomDockWidgetArea | Qt::RightDockWidgetArea);
    addDockWidget(Qt::BottomDockWidgetArea, m_logDock);
    statusBar()->addPermanentWidget(m_refreshLabel);
    m_refreshLabel->setText(QStringLiteral("no refresh yet"));
    buildMenus();

    connect(
        m_logRelay.get(), &logging::LogRelay::lineLogged, this,
        [this](const QString &level, const QString &line) { m_logDock->appendLine(level, line); });
    logging::installDefaultLogger(m_logRelay->sink());

    probes::ServicePoller *poller = m_poller->poller();
    connect(poller, &probes::ServicePoller::statusChecked, this,
            [this](const probes::ServiceStatus &status) {
                m_statusModel->updateStatus(status);
                m_refreshLabel->setText(
                    QStringLiteral("Last refresh %1")
                        .arg(status.lastCheck.toLocalTime().toString(QStringLiteral("HH:mm:ss"))));
            });
    connect(poller, &probes::ServicePoller::loadSampled, m_loadHistory,
            &probes::LoadHistory::append);
    connect(poller, &probes::ServicePoller::loadFailed, this,
            [this](const QString &service, const QString &reason) {
                m_decodePanel->showProblem(service, reason);
            });
    m_poller->start();
}

MainWindow::~MainWindow()
{
    // The relay's sink stays in the default logger; make it drop messages.
    logging::installDefaultLogger();
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(QStringLiteral("&File"));
    file->addAction(QStringLiteral("&Open inventory…"), QKeySequence::Open, this,
                    &MainWindow::chooseInventory);
    file->addAction(QStringLiteral("&Reload inventory"), QKeySequence::Refresh, this,
                    &MainWindow::reloadInventory);
    file->addSeparator();
    file->addAction(QStringLiteral("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    QMenu *view = menuBar()->addMenu(QStringLiteral("&View"));
    view->addAction(m_logDock->toggleViewAction());
}

QString MainWindow::bannerText() const
{
    return m_banner->isVisible() ? m_banner->text() : QString();
}

void MainWindow::showBanner(const QString &text, bool error)
{
    if (text.isEmpty()) {
        m_banner->hide();
        return;
    }
    QPalette palette = m_banner->palette();
    palette.setColor(QPalette::Window, error ? QColor(0xff, 0xeb, 0xee) : QColor(0xff, 0xf8, 0xe1));
    palette.setColor(QPalette::WindowText,
                     error ? QColor(0xb7, 0x1c, 0x1c) : QColor(0x5d, 0x40, 0x37));
    m_banner->setPalette(palette);
    m_banner->setText(text);
    m_banner->show();
}

bool MainWindow::openInventory(const QString &path)
{
    if (!m_poller)
        return false; // shutting down
    const auto loaded = inventory::loadInventory(path);
    if (!loaded.inventory) {
        QStringList lines;
        for (const auto &error : loaded.errors) {
            spdlog::error("{}", error.toString().toStdString());
            lines << error.toString();
        }
        const QString header = m_inventoryPath.isEmpty()
                                   ? QStringLiteral("Inventory not loaded:\n")
                                   : QStringLiteral("Inventory not loaded — still watching %1:\n")
                                         .arg(m_inventoryPath);
        showBanner(header + lines.join(QLatin1Char('\n')), true);
        return false;
    }
    m_inventoryPath = loaded.inventory->path;
    const auto &services = loaded.inventory->services;
    m_statusModel->setServices(services);
    const inventory::Service *decode = loaded.inventory->firstDecode();
    m_loadHistory->setService(decode ? decode->name : QString());
    m_poller->setServices(services);
    m_poller->start();
    showBanner({}, false);
    statusBar()->showMessage(
        QStringLiteral("Inventory %1 · %2 services").arg(m_inventoryPath).arg(services.size()));
    setWindowTitle(QStringLiteral("OpsDeck — %1").arg(m_inventoryPath));
    spdlog::info("watching {} services of {}", services.size(), m_inventoryPath.toStdString());
    return true;
}

void MainWindow::reloadInventory()
{
    if (!m_inventoryPath.isEmpty())
        openInventory(m_inventoryPath);
}

void MainWindow::chooseInventory()
{
    const QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Open inventory"), {},
                                                      QStringLiteral("Inventory (*.yaml *.yml)"));
    if (!path.isEmpty())
        openInventory(path);
}

void MainWindow::startDemo(const workflows::DemoOptions &options)
{
    if (!m_demo) {
        m_demo = new workflows::DemoCluster(this);
        connect(m_demo, &workflows::DemoCluster::progressed, this,
                [this](const QString &line) { statusBar()->showMessage(line, 5000); });
        connect(m_demo, &workflows::DemoCluster::upFinished, this,
                [this](bool ok, const QString &detail) {
                    m_demoState = ok ? DemoState::Running : DemoState::Stopped;
                    if (ok)
                        showBanner({}, false);
                    else
                        showBanner(QStringLiteral("The demo cluster did not start: ") + detail,
                                   true);
                    Q_EMIT demoStarted(ok, detail);
                    if (m_closeRequested)
                        close();
                });
        // Watch the services from the moment they are written, so that a
        // person sees them go from down through starting to healthy.
        connect(m_demo, &workflows::DemoCluster::inventoryWritten, this,
                [this](const QString &path) {
                    openInventory(path);
                    showBanner(QStringLiteral("Starting the demo cluster in %1 …").arg(m_demoDir),
                               false);
                });
        connect(m_demo, &workflows::DemoCluster::downFinished, this,
                [this](bool ok, const QString &message) {
                    m_demoState = DemoState::Stopped;
                    if (!ok)
                        spdlog::error("demo shutdown: {}", message.toStdString());
                    close();
                });
    }
    m_demoDir = options.dir;
    m_demoState = DemoState::Starting;
    showBanner(QStringLiteral("Starting the demo cluster in %1 …").arg(options.dir), false);
    m_demo->up(options);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    m_closeRequested = true;
    switch (m_demoState) {
    case DemoState::Starting:
    case DemoState::Stopping:
        event->ignore(); // close again when the start or the stop has finished
        return;
    case DemoState::Running:
        event->ignore();
        m_demoState = DemoState::Stopping;
        showBanner(QStringLiteral("Stopping every process of the demo cluster …"), false);
        m_demo->down(m_demoDir);
        return;
    case DemoState::None:
    case DemoState::Stopped:
        break;
    }
    m_poller.reset(); // stop polling before the window goes
    event->accept();
    Q_EMIT shutdownFinished();
}
