#include "mainwindow.h"

#include "alertcenter.h"
#include "alertthread.h"
#include "decodebatchpanel.h"
#include "democluster.h"
#include "desktopnotifier.h"
#include "historyrangeloader.h"
#include "historyrecorder.h"
#include "historystore.h"
#include "historywriter.h"
#include "hostconnections.h"
#include "hostkeyauditor.h"
#include "hoststab.h"
#include "hotwindow.h"
#include "keepalivewatch.h"
#include "loadhistory.h"
#include "logdock.h"
#include "logrelay.h"
#include "metricsdashboard.h"
#include "pollerthread.h"
#include "probelab.h"
#include "probelabpanel.h"
#include "secretprompt.h"
#include "secretsbanner.h"
#include "secretstore.h"
#include "servicespanel.h"
#include "servicestatusmodel.h"
#include "sshsecrets.h"
#include "stallbanner.h"

#include <QCloseEvent>
#include <QComboBox>
#include <QFileDialog>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QScreen>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <spdlog/spdlog.h>

using namespace opsdeck;

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_logRelay(std::make_unique<logging::LogRelay>()),
      m_poller(std::make_unique<probes::PollerThread>()),
      m_alerts(std::make_unique<alerts::AlertThread>()),
      m_statusModel(new probes::ServiceStatusModel(this)),
      m_loadHistory(new probes::LoadHistory(this)), m_hotWindow(new history::HotWindow(this)),
      m_rangeLoader(new history::HistoryRangeLoader(this)),
      m_alertCenter(new alerts::AlertCenter(this)), m_notifier(new alerts::DesktopNotifier(this)),
      m_servicesPanel(new ServicesPanel(m_statusModel)),
      m_dashboard(new MetricsDashboard(m_hotWindow)),
      m_probeLab(new probes::ProbeLab(m_hotWindow, this)),
      m_probeLabPanel(new ProbeLabPanel(m_probeLab, m_hotWindow)),
      m_hosts(new hosts::HostConnections({}, this)), m_hostsTab(new HostsTab(m_hosts)),
      m_secretPrompt(new SecretPrompt(this)), m_tabs(new QTabWidget),
      m_stallBanner(new StallBanner), m_watch(new probes::KeepAliveWatch(this)),
      m_dashboards(new QStackedWidget), m_logDock(new LogDock(this)), m_banner(new QLabel),
      m_alertBanner(new QLabel), m_refreshLabel(new QLabel), m_historyLabel(new QLabel),
      m_markerTimer(new QTimer(this))
{
    setWindowTitle(QStringLiteral("OpsDeck"));
    // Room for the dashboard's two columns and three rows of panels when the
    // screen has it, and never more than the screen: on a 1280 × 800 laptop
    // the cards, the banners and the decode batch are the first screen, the
    // rest scrolls.
    const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
    resize(std::min(screen.width(), std::clamp(screen.width() * 9 / 10, 1280, 1920)),
           std::min(screen.height(), std::clamp(screen.height() * 9 / 10, 860, 1200)));

    for (QLabel *banner : {m_banner, m_alertBanner}) {
        banner->setWordWrap(true);
        banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
        banner->setContentsMargins(10, 6, 10, 6);
        banner->setAutoFillBackground(true);
        banner->hide();
    }
    // Alerts always in the error colours.
    QPalette alertPalette = m_alertBanner->palette();
    alertPalette.setColor(QPalette::Window, QColor(0xff, 0xeb, 0xee));
    alertPalette.setColor(QPalette::WindowText, QColor(0xb7, 0x1c, 0x1c));
    m_alertBanner->setPalette(alertPalette);
    m_alertBanner->setObjectName(QStringLiteral("alertBanner"));

    m_dashboards->addWidget(m_dashboard);
    auto *central = new QWidget;
    // Opening the window reads opsdeck.conf again: the banner shows the
    // setting in force, even when this process used the store before. Made
    // with its parent so that showing it never opens a window of its own.
    secrets::SecretStore::shared().reloadSettings();
    m_secretsBanner = new SecretsBanner(&secrets::SecretStore::shared(), central);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(10, 10, 10, 6);
    layout->setSpacing(8);
    layout->addWidget(m_banner);
    layout->addWidget(m_alertBanner);
    layout->addWidget(m_stallBanner);
    layout->addWidget(m_secretsBanner);
    layout->addWidget(m_servicesPanel);
    auto *metrics = new QWidget;
    auto *metricsLayout = new QVBoxLayout(metrics);
    metricsLayout->setContentsMargins(0, 6, 0, 0);
    metricsLayout->addWidget(buildRangeBar());
    metricsLayout->addWidget(m_dashboards, 1);
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(metrics, QStringLiteral("Metrics"));
    m_tabs->addTab(m_probeLabPanel, QStringLiteral("Probe lab"));
    m_tabs->addTab(m_hostsTab, QStringLiteral("Hosts"));
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);

    m_logDock->setAllowedAreas(Qt::BottomDockWidgetArea | Qt::RightDockWidgetArea);
    addDockWidget(Qt::BottomDockWidgetArea, m_logDock);
    // The panels are what a person looks at first; the log is a few lines tall.
    resizeDocks({m_logDock}, {140}, Qt::Vertical);
    statusBar()->addPermanentWidget(m_historyLabel);
    statusBar()->addPermanentWidget(m_refreshLabel);
    m_refreshLabel->setText(QStringLiteral("no refresh yet"));
    buildMenus();

    connect(
        m_logRelay.get(), &logging::LogRelay::lineLogged, this,
        [this](const QString &level, const QString &line) { m_logDock->appendLine(level, line); });
    logging::installDefaultLogger(m_logRelay->sink());

    connectPoller();
    connectProbeLab();
    connectWatch();
    m_alerts->connectPoller(m_poller->poller());
    m_alerts->connectCenter(m_alertCenter);
    connect(m_alertCenter, &alerts::AlertCenter::changed, this, &MainWindow::showAlerts);
    // The center re-emits a raise when an alert's text is updated: notify once per raise.
    connect(m_alertCenter, &alerts::AlertCenter::alertRaised, this,
            [this](const alerts::Alert &alert) {
                if (!m_notified.contains(alert.key())) {
                    m_notified.insert(alert.key());
                    m_notifier->notify(alert);
                }
            });
    connect(m_alertCenter, &alerts::AlertCenter::alertCleared, this,
            [this](const alerts::Alert &alert) {
                if (m_notified.remove(alert.key()))
                    m_notifier->resolve(alert);
            });
    connect(m_rangeLoader, &history::HistoryRangeLoader::loaded, this, &MainWindow::rangeLoaded);
    connect(m_markerTimer, &QTimer::timeout, this, [this] {
        tryRecording();
        refreshMarkers();
    });
    m_markerTimer->start(5000);
    m_poller->start();
}

MainWindow::~MainWindow()
{
    stopBackgroundWork();
    // The transports (children) join their session threads after this.
    m_secretPrompt->abandon();
    // The relay's sink stays in the default logger; make it drop messages.
    logging::installDefaultLogger();
}

void MainWindow::connectPoller()
{
    probes::ServicePoller *poller = m_poller->poller();
    // One queued call per batch of results, not one per result and receiver.
    connect(poller, &probes::ServicePoller::answered, this, &MainWindow::showAnswers);
    connect(poller, &probes::ServicePoller::loadFailed, m_dashboard,
            &MetricsDashboard::showProblem);
}

void MainWindow::showAnswers(const probes::PollAnswers &answers)
{
    for (probes::ServiceStatus status : answers.statuses) {
        m_hosts->explain(status); // the table's copy: a tunnel's state told apart
        m_statusModel->updateStatus(status);
    }
    if (!answers.statuses.isEmpty())
        m_refreshLabel->setText(QStringLiteral("Last refresh %1")
                                    .arg(answers.statuses.last().lastCheck.toLocalTime().toString(
                                        QStringLiteral("HH:mm:ss"))));
    for (const probes::LoadSample &sample : answers.loads) {
        m_loadHistory->append(sample);
        m_dashboard->noteLoad(sample);
    }
    for (const probes::MetricsSnapshot &snapshot : answers.snapshots)
        m_dashboard->noteSnapshot(snapshot);
}

QWidget *MainWindow::buildRangeBar()
{
    auto *bar = new QWidget;
    auto *row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    auto *title = new QLabel(QStringLiteral("History range"));
    m_rangeBox = new QComboBox;
    m_rangeBox->addItem(QStringLiteral("Live"), qint64(0));
    for (int hours : {1, 6, 24})
        m_rangeBox->addItem(QStringLiteral("%1 h").arg(hours), qint64(hours) * 3600 * 1000);
    m_rangeBox->setToolTip(QStringLiteral(
        "Live: the last minutes, polled now. 1 h / 6 h / 24 h: read from the inventory's "
        "Prometheus server when it names one, else from the history database."));
    m_rangeLabel = new QLabel;
    row->addWidget(title);
    row->addWidget(m_rangeBox);
    row->addWidget(m_rangeLabel, 1);
    connect(m_rangeBox, &QComboBox::activated, this,
            [this](int index) { showHistoryRange(m_rangeBox->itemData(index).toLongLong()); });
    return bar;
}

void MainWindow::connectProbeLab()
{
    connect(m_probeLab, &probes::ProbeLab::stallDiagnosed, this,
            [this](const probes::Diagnosis &diagnosis) {
                m_stallBanner->showStall(m_probeLab->cluster(), diagnosis);
                spdlog::warn("probe lab: {}", diagnosis.headline().toStdString());
            });
    connect(m_probeLab, &probes::ProbeLab::diagnosisCleared, this,
            [this] { m_stallBanner->clearStall(m_probeLab->cluster()); });
    connect(m_probeLab, &probes::ProbeLab::markerAdded, this, &MainWindow::refreshMarkers);
}

void MainWindow::connectWatch()
{
    connect(m_watch, &probes::KeepAliveWatch::stallDiagnosed, this,
            [this](const QString &cluster, const probes::Diagnosis &diagnosis) {
                m_stallBanner->showStall(cluster, diagnosis);
                spdlog::warn("watch: {}: {}", cluster.toStdString(),
                             diagnosis.headline().toStdString());
            });
    connect(m_watch, &probes::KeepAliveWatch::stallCleared, this,
            [this](const QString &cluster, const QString &why) {
                m_stallBanner->clearStall(cluster);
                spdlog::info("watch: {}: {}", cluster.toStdString(), why.toStdString());
            });
    connect(m_watch, &probes::KeepAliveWatch::markerAdded, this, &MainWindow::refreshMarkers);
}

void MainWindow::showProbeLab()
{
    m_tabs->setCurrentWidget(m_probeLabPanel);
}

QString MainWindow::secretsBannerText() const
{
    return m_secretsBanner->isHidden() ? QString() : m_secretsBanner->text();
}

QString MainWindow::stallBannerText() const
{
    return m_stallBanner->plainText();
}

DecodeBatchPanel *MainWindow::decodePanel() const
{
    return m_dashboard->decodePanel();
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
    QStringList lines;
    for (const QLabel *banner : {m_banner, m_alertBanner})
        if (!banner->isHidden() && !banner->text().isEmpty())
            lines << banner->text();
    return lines.join(QLatin1Char('\n'));
}

void MainWindow::showAlerts()
{
    const QString text = m_alertCenter->bannerText();
    m_alertBanner->setText(text);
    m_alertBanner->setVisible(!text.isEmpty());
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
        // A file with thousands of errors must not grow the window (or the
        // log) without bound: the first ones say what is wrong, and where.
        constexpr qsizetype shownErrors = 10;
        constexpr qsizetype loggedErrors = 200;
        QStringList lines;
        for (qsizetype i = 0; i < loaded.errors.size() && i < loggedErrors; ++i) {
            const QString text = loaded.errors[i].toString();
            spdlog::error("{}", text.toStdString());
            if (i < shownErrors)
                lines << text;
        }
        if (loaded.errors.size() > shownErrors)
            lines << QStringLiteral("… and %1 more errors (%2 in the log)")
                         .arg(loaded.errors.size() - shownErrors)
                         .arg(std::min(loaded.errors.size(), loggedErrors) - shownErrors);
        const QString header = m_inventoryPath.isEmpty()
                                   ? QStringLiteral("Inventory not loaded:\n")
                                   : QStringLiteral("Inventory not loaded — still watching %1:\n")
                                         .arg(m_inventoryPath);
        showBanner(header + lines.join(QLatin1Char('\n')), true);
        return false;
    }
    m_inventoryPath = loaded.inventory->path;
    m_inventory = *loaded.inventory;
    // Hosts first: services with `via:` are polled and probed through their tunnels.
    hosts::HostConnections::Options hostOptions = m_hostOptions;
    hostOptions.decorate = [base = m_hostOptions.decorate,
                            prompt = m_secretPrompt](remote::SshSettings &settings) {
        if (base)
            base(settings);
        remote::SshSecrets::install(
            settings, [prompt](const QString &question) { return prompt->ask(question); });
    };
    hostOptions.auditor = hosts::HostKeyAuditor::inDataDir(m_dataDir);
    m_hosts->setOptions(hostOptions);
    // The old transports' threads are joined: none may wait on a question.
    m_secretPrompt->abandon();
    m_hosts->setInventory(*m_inventory);
    const inventory::Inventory routed = m_hosts->routed();
    const auto &services = routed.services;
    m_statusModel->setServices(services);
    const inventory::Service *decode = loaded.inventory->firstDecode();
    m_loadHistory->setService(decode ? decode->name : QString());
    // History first: the preload must reach the hot window before new samples.
    openHistory(history::HistoryStore::pathIn(historyDir()));
    m_rangeLoader->setSources(*m_inventory, databasePath());
    m_dashboard->setInventory(*m_inventory);
    m_probeLab->setInventory(routed);
    m_stallBanner->clearAll();
    startOrFollowWatch(true);
    if (m_rangeDashboard)
        m_rangeDashboard->setInventory(*m_inventory);
    if (m_alerts)
        m_alerts->setInventory(routed);
    m_poller->setServices(services);
    m_poller->start();
    refreshMarkers();
    showBanner({}, false);
    statusBar()->showMessage(
        QStringLiteral("Inventory %1 · %2 services").arg(m_inventoryPath).arg(services.size()));
    // The platform appends the application's display name ("… — OpsDeck").
    setWindowTitle(m_inventoryPath);
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

void MainWindow::startDemo(const demo::DemoOptions &options)
{
    if (!m_demo) {
        m_demo = new demo::DemoCluster(this);
        connect(m_demo, &demo::DemoCluster::progressed, this,
                [this](const QString &line) { statusBar()->showMessage(line, 5000); });
        connect(
            m_demo, &demo::DemoCluster::upFinished, this, [this](bool ok, const QString &detail) {
                m_demoState = ok ? DemoState::Running : DemoState::Stopped;
                if (ok) {
                    showBanner({}, false);
                    // Every service answers now: the watch's startup rounds again.
                    startOrFollowWatch(true);
                } else {
                    showBanner(QStringLiteral("The demo cluster did not start: ") + detail, true);
                }
                Q_EMIT demoStarted(ok, detail);
                if (m_closeRequested)
                    close();
            });
        // Watch the services from the moment they are written, so that a
        // person sees them go from down through starting to healthy.
        connect(m_demo, &demo::DemoCluster::inventoryWritten, this, [this](const QString &path) {
            openInventory(path);
            showBanner(QStringLiteral("Starting the demo cluster in %1 …").arg(m_demoDir), false);
        });
        connect(m_demo, &demo::DemoCluster::downFinished, this,
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
        // Services going down on purpose must not raise alerts or notifications.
        m_alerts.reset();
        showBanner(QStringLiteral("Stopping every process of the demo cluster …"), false);
        m_demo->down(m_demoDir);
        return;
    case DemoState::None:
    case DemoState::Stopped:
        break;
    }
    stopBackgroundWork(); // stop polling and flush history before the window goes
    event->accept();
    Q_EMIT shutdownFinished();
}
