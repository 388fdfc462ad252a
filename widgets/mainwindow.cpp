#include "mainwindow.h"

#include "alertcenter.h"
#include "audittab.h"
#include "clusteractionsbar.h"
#include "decodebatchpanel.h"
#include "historyrangeloader.h"
#include "hoststab.h"
#include "hotwindow.h"
#include "knobstab.h"
#include "logdock.h"
#include "logrelay.h"
#include "metricsdashboard.h"
#include "probelab.h"
#include "probelabpanel.h"
#include "secretprompt.h"
#include "secretsbanner.h"
#include "secretstore.h"
#include "servicespanel.h"
#include "sshsecrets.h"
#include "stallbanner.h"
#include "workflowdialog.h"
#include "workflowsession.h"

#include <QCloseEvent>
#include <QComboBox>
#include <QFileDialog>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QScreen>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <spdlog/spdlog.h>

using namespace opsdeck;

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_logRelay(std::make_unique<logging::LogRelay>()),
      m_session(new session::ConsoleSession({}, this)),
      m_servicesPanel(new ServicesPanel(m_session->statusModel())),
      m_dashboard(new MetricsDashboard(m_session->hotWindow())),
      m_probeLabPanel(new ProbeLabPanel(m_session->probeLab(), m_session->hotWindow())),
      m_hostsTab(new HostsTab(m_session->hostConnections())),
      m_knobsTab(new KnobsTab(m_session->knobs())), m_auditTab(new AuditTab),
      m_clusterBar(new ClusterActionsBar(m_session->workflows())),
      m_secretPrompt(new SecretPrompt(this)), m_tabs(new QTabWidget),
      m_stallBanner(new StallBanner), m_dashboards(new QStackedWidget),
      m_logDock(new LogDock(this)), m_banner(new QLabel), m_alertBanner(new QLabel),
      m_refreshLabel(new QLabel), m_historyLabel(new QLabel)
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
    layout->addWidget(buildHistoryProblemBar());
    layout->addWidget(m_secretsBanner);
    layout->addWidget(m_clusterBar);
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
    m_tabs->addTab(m_knobsTab, QStringLiteral("Knobs"));
    m_tabs->addTab(m_auditTab, QStringLiteral("Audit"));
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

    connectSession();
    setHostOptions({});
}

MainWindow::~MainWindow()
{
    m_session->stop();
    // The transports (the session's) join their session threads after this.
    m_secretPrompt->abandon();
    // The relay's sink stays in the default logger; make it drop messages.
    logging::installDefaultLogger();
}

void MainWindow::connectSession()
{
    session::ConsoleSession *s = m_session;
    connect(s, &session::ConsoleSession::answered, this, &MainWindow::showAnswers);
    connect(s, &session::ConsoleSession::loadFailed, m_dashboard, &MetricsDashboard::showProblem);
    connect(s->alertCenter(), &alerts::AlertCenter::changed, this, &MainWindow::showAlerts);
    connect(s->rangeLoader(), &history::HistoryRangeLoader::loaded, this, &MainWindow::rangeLoaded);
    connect(s, &session::ConsoleSession::stallDiagnosed, m_stallBanner, &StallBanner::showStall);
    connect(s, &session::ConsoleSession::stallCleared, m_stallBanner, &StallBanner::clearStall);
    connect(s, &session::ConsoleSession::markersChanged, this, &MainWindow::refreshMarkers);
    connect(s, &session::ConsoleSession::historyStatusChanged, this,
            &MainWindow::showHistoryStatus);
    connect(s, &session::ConsoleSession::historyWriteFailed, this,
            [this](const QString &error) { statusBar()->showMessage(error, 10000); });
    connect(s, &session::ConsoleSession::historyCorrupted, this, [this](const QString &error) {
        m_historyProblemLabel->setText(error);
        m_historyProblem->show();
    });
    connect(s, &session::ConsoleSession::demoProgressed, this,
            [this](const QString &line) { statusBar()->showMessage(line, 5000); });
    connect(s, &session::ConsoleSession::demoInventoryOpened, this,
            [this](const inventory::LoadResult &loaded) {
                if (!loaded.inventory) {
                    showLoadErrors(loaded);
                    return;
                }
                m_stallBanner->clearAll();
                showWatching();
                showBanner(
                    QStringLiteral("Starting the demo cluster in %1 …").arg(m_session->demoDir()),
                    false);
            });
    connect(s, &session::ConsoleSession::demoStarted, this, [this](bool ok, const QString &detail) {
        if (ok)
            showBanner({}, false);
        else
            showBanner(QStringLiteral("The demo cluster did not start: ") + detail, true);
        Q_EMIT demoStarted(ok, detail);
    });
    connect(m_servicesPanel, &ServicesPanel::restartRequested, this, [this](const QString &name) {
        const auto &inventory = m_session->inventory();
        QString cluster;
        for (const auto &c : inventory ? inventory->clusters : QVector<inventory::Cluster>())
            if (c.prefill.contains(name) || c.decode.contains(name) || c.router == name ||
                c.proxy == name)
                cluster = c.name;
        if (cluster.isEmpty()) {
            statusBar()->showMessage(
                QStringLiteral("%1 belongs to no cluster of the inventory: a workflow restarts "
                               "a cluster's member")
                    .arg(name),
                10000);
            return;
        }
        openWorkflow(QStringLiteral("restart"), cluster, name);
    });
    connect(m_clusterBar, &ClusterActionsBar::workflowRequested, this,
            [this](const QString &kind, const QString &cluster) { openWorkflow(kind, cluster); });
    connect(m_clusterBar, &ClusterActionsBar::resumeRequested, this,
            [this](const workflows::WorkflowJournal::Summary &unfinished) {
                if (!m_workflowDialog)
                    showWorkflowDialog(new WorkflowDialog(m_session->workflows(), unfinished,
                                                          m_session->auditLogPath(), this));
            });
    connect(m_clusterBar, &ClusterActionsBar::abandonRequested, m_session->workflows(),
            &workflows::WorkflowSession::abandon);
    connect(m_session->workflows(), &workflows::WorkflowSession::refused, this,
            [this](const QString &why) {
                if (!m_workflowDialog)
                    statusBar()->showMessage(why, 15000);
            });
    connect(m_session->workflows(), &workflows::WorkflowSession::finished, this, [this] {
        m_auditTab->reload();
        refreshMarkers();
    });
    // Every process the session started has exited: the window may go.
    connect(s, &session::ConsoleSession::shutdownReady, this, &QWidget::close);
}

void MainWindow::setHostOptions(const hosts::HostConnections::Options &options)
{
    hosts::HostConnections::Options withPrompt = options;
    withPrompt.decorate = [base = options.decorate,
                           prompt = m_secretPrompt](remote::SshSettings &settings) {
        if (base)
            base(settings);
        remote::SshSecrets::install(
            settings, [prompt](const QString &question) { return prompt->ask(question); });
    };
    m_session->setHostOptions(withPrompt);
}

void MainWindow::showAnswers(const probes::PollAnswers &answers)
{
    if (!answers.statuses.isEmpty())
        m_refreshLabel->setText(QStringLiteral("Last refresh %1")
                                    .arg(answers.statuses.last().lastCheck.toLocalTime().toString(
                                        QStringLiteral("HH:mm:ss"))));
    for (const probes::LoadSample &sample : answers.loads)
        m_dashboard->noteLoad(sample);
    for (const probes::MetricsSnapshot &snapshot : answers.snapshots)
        m_dashboard->noteSnapshot(snapshot);
}

QWidget *MainWindow::buildHistoryProblemBar()
{
    // Recording stopped on a corrupt file: say so where it cannot be missed,
    // with the one action that fixes it.
    m_historyProblem = new QWidget;
    m_historyProblem->setAutoFillBackground(true);
    QPalette palette = m_historyProblem->palette();
    palette.setColor(QPalette::Window, QColor(0xff, 0xeb, 0xee));
    palette.setColor(QPalette::WindowText, QColor(0xb7, 0x1c, 0x1c));
    m_historyProblem->setPalette(palette);
    auto *row = new QHBoxLayout(m_historyProblem);
    row->setContentsMargins(10, 6, 10, 6);
    m_historyProblemLabel = new QLabel;
    m_historyProblemLabel->setWordWrap(true);
    m_historyProblemLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_recoverHistory = new QPushButton(QStringLiteral("Move it aside and start a new history"));
    row->addWidget(m_historyProblemLabel, 1);
    row->addWidget(m_recoverHistory);
    connect(m_recoverHistory, &QPushButton::clicked, this, &MainWindow::recoverHistory);
    m_historyProblem->hide();
    return m_historyProblem;
}

void MainWindow::recoverHistory()
{
    QString movedTo;
    QString error;
    if (!m_session->recoverHistory(&movedTo, &error)) {
        m_historyProblemLabel->setText(QStringLiteral("Not moved: %1").arg(error));
        return;
    }
    m_historyProblem->hide();
    statusBar()->showMessage(
        QStringLiteral("The corrupt history was moved to %1; recording into a new one")
            .arg(movedTo),
        15000);
}

QString MainWindow::historyProblemText() const
{
    return m_historyProblem->isHidden() ? QString() : m_historyProblemLabel->text();
}

void MainWindow::showHistoryStatus(const QString &status, const QString &detail)
{
    m_historyLabel->setText(status);
    m_historyLabel->setToolTip(detail);
}

QString MainWindow::historyStatus() const
{
    return m_historyLabel->text();
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
    const QString text = m_session->alertCenter()->bannerText();
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

void MainWindow::showLoadErrors(const inventory::LoadResult &loaded)
{
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
    const QString watched = m_session->inventoryPath();
    const QString header =
        watched.isEmpty()
            ? QStringLiteral("Inventory not loaded:\n")
            : QStringLiteral("Inventory not loaded — still watching %1:\n").arg(watched);
    showBanner(header + lines.join(QLatin1Char('\n')), true);
}

bool MainWindow::openInventory(const QString &path)
{
    // The old transports' threads are joined on reopening: none may wait on a question.
    m_secretPrompt->abandon();
    const inventory::LoadResult loaded = m_session->openInventory(path);
    // The old transports are gone (or kept, on a bad file): ask again.
    m_secretPrompt->resume();
    if (!loaded.inventory) {
        showLoadErrors(loaded);
        return false;
    }
    if (!m_session->pollerThread())
        return false; // shutting down
    m_stallBanner->clearAll();
    showWatching();
    showBanner({}, false);
    return true;
}

void MainWindow::showWatching()
{
    const auto &inventory = m_session->inventory();
    if (!inventory)
        return;
    m_clusterBar->refresh();
    m_auditTab->setLogPath(m_session->auditLogPath());
    m_dashboard->setInventory(*inventory);
    if (m_rangeDashboard)
        m_rangeDashboard->setInventory(*inventory);
    refreshMarkers();
    statusBar()->showMessage(QStringLiteral("Inventory %1 · %2 services")
                                 .arg(inventory->path)
                                 .arg(inventory->services.size()));
    // The platform appends the application's display name ("… — OpsDeck").
    setWindowTitle(inventory->path);
}

WorkflowDialog *MainWindow::openWorkflow(const QString &kind, const QString &cluster,
                                         const QString &service)
{
    const auto parsed = workflows::workflowKindFromName(kind);
    if (!parsed || m_workflowDialog)
        return nullptr;
    return showWorkflowDialog(new WorkflowDialog(m_session->workflows(),
                                                 {*parsed, cluster, service, {}, {}, {}, false},
                                                 m_session->auditLogPath(), this));
}

WorkflowDialog *MainWindow::workflowDialog() const
{
    return m_workflowDialog;
}

WorkflowDialog *MainWindow::showWorkflowDialog(WorkflowDialog *dialog)
{
    m_workflowDialog = dialog;
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::finished, m_clusterBar, &ClusterActionsBar::refresh);
    dialog->open();
    return dialog;
}

void MainWindow::reloadInventory()
{
    if (!m_session->inventoryPath().isEmpty())
        openInventory(m_session->inventoryPath());
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
    showBanner(QStringLiteral("Starting the demo cluster in %1 …").arg(options.dir), false);
    m_session->startDemo(options);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (m_shutdownFinished) {
        event->accept();
        return;
    }
    if (!m_session->requestShutdown()) {
        // A demo cluster is starting or stopping: the session's shutdownReady closes again.
        event->ignore();
        if (m_session->isStoppingDemo())
            showBanner(QStringLiteral("Stopping every process of the demo cluster …"), false);
        return;
    }
    event->accept();
    m_shutdownFinished = true;
    Q_EMIT shutdownFinished();
}
