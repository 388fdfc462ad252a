#include "consolesession.h"

#include "alertcenter.h"
#include "alertthread.h"
#include "apppaths.h"
#include "auditlog.h"
#include "checkjson.h"
#include "democluster.h"
#include "desktopnotifier.h"
#include "historyrangeloader.h"
#include "historyrecorder.h"
#include "historystore.h"
#include "historywriter.h"
#include "hostkeyauditor.h"
#include "hotwindow.h"
#include "keepalivewatch.h"
#include "loadhistory.h"
#include "pollerthread.h"
#include "probeengine.h"
#include "probelab.h"
#include "secretstore.h"
#include "serviceknobs.h"
#include "servicestatusmodel.h"
#include "workflowsession.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
#include <spdlog/spdlog.h>

namespace opsdeck::session {

namespace {

// The hot window's span: what a restart shows at once.
double preloadHours(const history::HotWindow &window)
{
    return double(window.settings().windowMs) / 3600000.0;
}

} // namespace

ConsoleSession::ConsoleSession(Options options, QObject *parent)
    : QObject(parent), m_options(std::move(options)),
      m_poller(std::make_unique<probes::PollerThread>()),
      m_statusModel(new probes::ServiceStatusModel(this)),
      m_loadHistory(new probes::LoadHistory(this)),
      m_hotWindow(m_options.hotWindow ? new history::HotWindow(this) : nullptr),
      m_rangeLoader(new history::HistoryRangeLoader(this)),
      m_alertCenter(new alerts::AlertCenter(this)),
      m_probeLab(new probes::ProbeLab(m_hotWindow, this)),
      m_hosts(new hosts::HostConnections({}, this)), m_knobs(new knobs::ServiceKnobs(this)),
      m_workflowEngine(std::make_unique<probes::ProbeEngine>()),
      m_workflows(new workflows::WorkflowSession(this)), m_watch(new probes::KeepAliveWatch(this))
{
    probes::ServicePoller *poller = m_poller->poller();
    if (m_options.pollIntervalMs > 0) {
        probes::ServicePoller::Settings settings;
        settings.intervalMs = m_options.pollIntervalMs;
        QMetaObject::invokeMethod(
            poller, [poller, settings] { poller->setSettings(settings); }, Qt::QueuedConnection);
    }
    // One queued call per batch of results, not one per result and receiver.
    connect(poller, &probes::ServicePoller::answered, this, &ConsoleSession::takeAnswers);
    connect(poller, &probes::ServicePoller::loadFailed, this, &ConsoleSession::loadFailed);
    if (m_options.alerts)
        connectAlerts();

    connect(m_probeLab, &probes::ProbeLab::stallDiagnosed, this,
            [this](const probes::Diagnosis &diagnosis) {
                spdlog::warn("probe lab: {}", diagnosis.headline().toStdString());
                Q_EMIT stallDiagnosed(m_probeLab->cluster(), diagnosis);
            });
    connect(m_probeLab, &probes::ProbeLab::diagnosisCleared, this,
            [this] { Q_EMIT stallCleared(m_probeLab->cluster()); });
    connect(m_probeLab, &probes::ProbeLab::markerAdded, this, &ConsoleSession::markersChanged);
    connect(m_watch, &probes::KeepAliveWatch::stallDiagnosed, this,
            [this](const QString &cluster, const probes::Diagnosis &diagnosis) {
                spdlog::warn("watch: {}: {}", cluster.toStdString(),
                             diagnosis.headline().toStdString());
                Q_EMIT stallDiagnosed(cluster, diagnosis);
            });
    connect(m_watch, &probes::KeepAliveWatch::stallCleared, this,
            [this](const QString &cluster, const QString &why) {
                spdlog::info("watch: {}: {}", cluster.toStdString(), why.toStdString());
                Q_EMIT stallCleared(cluster);
            });
    connect(m_watch, &probes::KeepAliveWatch::markerAdded, this, &ConsoleSession::markersChanged);

    connect(&m_tick, &QTimer::timeout, this, [this] {
        tryRecording();
        refreshRecordedDiagnoses();
        Q_EMIT markersChanged();
    });
    m_tick.start(5000);
    m_poller->start();
}

ConsoleSession::~ConsoleSession()
{
    stop();
}

void ConsoleSession::connectAlerts()
{
    m_alerts = std::make_unique<alerts::AlertThread>();
    m_alerts->connectPoller(m_poller->poller());
    m_alerts->connectCenter(m_alertCenter);
    if (!m_options.notifications)
        return;
    m_notifier = new alerts::DesktopNotifier(this);
    // The center re-emits a raise when an alert's text is updated: notify once per raise.
    connect(m_alertCenter, &alerts::AlertCenter::alertRaised, this, &ConsoleSession::noteRaised);
    connect(m_alertCenter, &alerts::AlertCenter::alertCleared, this, &ConsoleSession::noteCleared);
}

void ConsoleSession::noteRaised(const alerts::Alert &alert)
{
    if (!m_notified.contains(alert.key())) {
        m_notified.insert(alert.key());
        m_notifier->notify(alert);
    }
}

void ConsoleSession::noteCleared(const alerts::Alert &alert)
{
    if (m_notified.remove(alert.key()))
        m_notifier->resolve(alert);
}

void ConsoleSession::takeAnswers(const probes::PollAnswers &answers)
{
    for (probes::ServiceStatus status : answers.statuses) {
        m_hosts->explain(status); // the table's copy: a tunnel's state told apart
        m_statusModel->updateStatus(status);
    }
    for (const probes::LoadSample &sample : answers.loads)
        m_loadHistory->append(sample);
    Q_EMIT answered(answers);
}

inventory::LoadResult ConsoleSession::openInventory(const QString &path)
{
    // A running workflow's transports and files are this inventory's: they
    // stay until it has ended.
    if (m_workflows->running()) {
        inventory::LoadResult refused;
        refused.errors.append({path,
                               0,
                               0,
                               {},
                               QStringLiteral("not opened: a workflow is running on the open "
                                              "inventory; cancel it or let it end first")});
        return refused;
    }
    inventory::LoadResult loaded = inventory::loadInventory(path);
    if (!loaded.inventory || !m_poller)
        return loaded;
    // Hosts first: services with `via:` are polled and probed through their tunnels.
    hosts::HostConnections::Options hostOptions = m_options.hostOptions;
    hostOptions.auditor = hosts::HostKeyAuditor::inDataDir(m_options.dataDir);
    m_hosts->setOptions(hostOptions);
    m_hosts->setInventory(*loaded.inventory);
    m_inventory = *loaded.inventory;
    const QString markers = history::HistoryStore::pathIn(historyDir());
    std::shared_ptr<hosts::HostKeyAuditor> auditor = hostOptions.auditor;
    m_knobs->setInventory(
        *loaded.inventory, [this](const QString &host) { return m_hosts->transport(host); },
        [auditor](const history::AuditEntry &entry, QObject *context,
                  std::function<void(bool, const QString &)> done,
                  std::function<void()> afterwards) {
            auditor->appendEntry(entry, context, std::move(done), std::move(afterwards));
        },
        [markers](const history::Marker &marker) {
            QString error;
            if (!history::HistoryStore::addMarkerTo(markers, marker, &error))
                spdlog::warn("knob marker not added to history: {}", error.toStdString());
        });
    m_auditor = auditor;
    setWorkflowContext(*loaded.inventory);
    watchRouted(m_hosts->routed());
    return loaded;
}

void ConsoleSession::setWorkflowContext(const inventory::Inventory &inventory)
{
    workflows::WorkflowSession::Context context;
    context.runner.inventory = inventory;
    context.runner.transportFor = [this](const QString &host) { return m_hosts->transport(host); };
    context.runner.filesFor = [this](const QString &host) { return m_knobs->remoteFilesOf(host); };
    context.knobFilesFor = [this](const QString &host) { return m_knobs->filesOf(host); };
    context.runner.engine = m_workflowEngine.get();
    context.runner.store = &secrets::SecretStore::shared();
    context.dataDir = historyDir();
    context.autoRollback = workflows::WorkflowSession::autoRollbackSetting();
    const QString database = history::HistoryStore::pathIn(context.dataDir);
    context.runner.marker = [database](const history::Marker &marker, QString *error) {
        return history::HistoryStore::addMarkerTo(database, marker, error);
    };
    std::shared_ptr<hosts::HostKeyAuditor> auditor = m_auditor;
    context.runner.audit = [this, auditor](const history::AuditEntry &entry,
                                           std::function<void(bool, QString)> done) {
        auditor->appendEntry(entry, this, std::move(done));
    };
    m_workflows->setContext(std::move(context));
}

QString ConsoleSession::auditLogPath() const
{
    return m_auditor && m_auditor->log() ? m_auditor->log()->path() : QString();
}

void ConsoleSession::watchRouted(const inventory::Inventory &routed)
{
    if (!m_poller)
        return; // stopped
    if (!m_inventory || m_inventory->path != routed.path)
        m_inventory = routed;
    m_routed = routed;
    m_statusModel->setServices(routed.services);
    const inventory::Service *decode = routed.firstDecode();
    m_loadHistory->setService(decode ? decode->name : QString());
    // History first: the preload must reach the hot window before new samples.
    openHistory(history::HistoryStore::pathIn(historyDir()));
    m_rangeLoader->setSources(*m_inventory, databasePath());
    m_probeLab->setInventory(routed);
    startOrFollowWatch(true);
    if (m_alerts)
        m_alerts->setInventory(routed);
    m_poller->setServices(routed.services);
    m_poller->start();
    Q_EMIT markersChanged();
    spdlog::info("watching {} services of {}", routed.services.size(), routed.path.toStdString());
}

QString ConsoleSession::historyDir() const
{
    // A demo's history lives in its folder, where `opsdeck-cli demo up`'s
    // recorder writes it too: the two share one lock.
    if (m_demoState != DemoState::None && !m_demoDir.isEmpty())
        return m_demoDir;
    return settings::AppPaths::dataDir(m_options.dataDir);
}

QString ConsoleSession::databasePath() const
{
    return m_writer ? m_writer->databasePath() : QString();
}

bool ConsoleSession::isRecordingHistory() const
{
    return m_writer && m_writer->isRecording();
}

qint64 ConsoleSession::samplesRecorded() const
{
    return m_recorder ? m_recorder->samplesRecorded() : 0;
}

void ConsoleSession::openHistory(const QString &databasePath, bool reopen)
{
    const QString path = QFileInfo(databasePath).absoluteFilePath();
    if (!reopen && m_writer && m_writer->databasePath() == path)
        return; // the same database: its points are in the hot window already
    delete m_recorder;
    m_recorder = nullptr;
    if (m_writer)
        m_writer->stop();
    m_writer = std::make_unique<history::HistoryWriter>(path);
    connect(m_writer.get(), &history::HistoryWriter::writeFailed, this,
            [this](const QString &error) {
                spdlog::error("history: {}", error.toStdString());
                Q_EMIT historyWriteFailed(error);
            });
    connect(m_writer.get(), &history::HistoryWriter::corrupted, this, [this](const QString &error) {
        m_writer->stop(); // the samples still queued are counted as not written
        setHistoryStatus(QStringLiteral("history NOT recorded: the database is corrupt"), error);
        Q_EMIT historyCorrupted(error);
    });
    tryRecording();
    m_store = std::make_unique<history::HistoryStore>(path);
    if (m_writer->isCorrupt()) {
        m_store.reset(); // opening it could write to the file that is to be left alone
    } else if (!m_store->open()) {
        spdlog::error("history not readable: {}", m_store->lastError().toStdString());
        Q_EMIT historyWriteFailed(m_store->lastError());
    } else if (m_hotWindow) {
        QElapsedTimer timer;
        timer.start();
        const qint64 points = m_hotWindow->preload(*m_store, preloadHours(*m_hotWindow),
                                                   QDateTime::currentMSecsSinceEpoch());
        spdlog::info("history: {} points of the last {} h loaded from {} in {} ms", points,
                     preloadHours(*m_hotWindow), path.toStdString(), timer.elapsed());
    }
    // The writer drops samples while another process records; the hot window
    // fills either way.
    m_recorder =
        new history::HistoryRecorder(m_poller->poller(), m_writer.get(), m_hotWindow, this);
    m_probeLab->setHistory(m_writer.get(), path);
}

void ConsoleSession::setHistoryStatus(const QString &status, const QString &detail)
{
    if (status == m_historyStatus && detail == m_historyDetail)
        return;
    m_historyStatus = status;
    m_historyDetail = detail;
    Q_EMIT historyStatusChanged(status, detail);
}

bool ConsoleSession::isHistoryCorrupt() const
{
    return m_writer && m_writer->isCorrupt();
}

bool ConsoleSession::recoverHistory(QString *movedTo, QString *error)
{
    if (!m_writer) {
        *error = QStringLiteral("no history database is open");
        return false;
    }
    const QString path = m_writer->databasePath();
    m_writer->stop();
    m_store.reset(); // its connection would keep the old file open
    if (!history::HistoryWriter::moveAside(path, movedTo, error))
        return false;
    spdlog::warn("history: moved {} aside to {}; recording into a new one", path.toStdString(),
                 movedTo->toStdString());
    openHistory(path, true);
    startOrFollowWatch(true);
    return true;
}

void ConsoleSession::tryRecording()
{
    // A corrupt file is not retried every 5 s: recoverHistory() starts anew.
    if (!m_writer || m_writer->isRecording() || m_writer->isCorrupt())
        return;
    QString error;
    if (m_writer->start(&error)) {
        spdlog::info("history: recording into {}", m_writer->databasePath().toStdString());
        setHistoryStatus(QStringLiteral("Recording history"), m_writer->databasePath());
        startOrFollowWatch(false); // taking over from a recorder that stopped: watch too
        return;
    }
    if (m_writer->isCorrupt()) {
        spdlog::error("history: {}", error.toStdString());
        setHistoryStatus(QStringLiteral("history NOT recorded: the database is corrupt"), error);
        Q_EMIT historyCorrupted(error);
        return;
    }
    QLockFile lock(history::HistoryWriter::lockPath(m_writer->databasePath()));
    qint64 pid = 0;
    QString host;
    QString program;
    const QString text = lock.getLockInfo(&pid, &host, &program)
                             ? QStringLiteral("history recorded by pid %1").arg(pid)
                             : QStringLiteral("history not recorded");
    if (m_historyStatus != text)
        spdlog::warn("history: {}", error.toStdString());
    setHistoryStatus(text, error);
}

void ConsoleSession::startOrFollowWatch(bool restart)
{
    if (!m_routed || !m_options.watch)
        return;
    m_watch->setDatabasePath(databasePath());
    if (isRecordingHistory()) {
        if (restart || !m_watch->isRunning())
            m_watch->start(*m_routed);
    } else {
        // One watch per data dir: the recorder's; its diagnoses come from history.
        m_watch->stop();
        refreshRecordedDiagnoses();
    }
}

void ConsoleSession::refreshRecordedDiagnoses()
{
    if (m_watch->isRunning() || !m_store || !m_store->isOpen() || !m_inventory)
        return;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    // The newest `watch` row per cluster within the hour says whether a stall stands.
    QHash<QString, QByteArray> newest;
    for (const history::CheckRecord &check :
         m_store->checks(now - 3'600'000, now + 60'000, QStringLiteral("watch")))
        newest.insert(check.cluster, check.json);
    for (auto it = newest.cbegin(); it != newest.cend(); ++it) {
        const QJsonValue stall =
            QJsonDocument::fromJson(it.value()).object().value(QStringLiteral("stall"));
        if (stall.isObject())
            Q_EMIT stallDiagnosed(it.key(), probes::diagnosisFromJson(stall.toObject()));
        else
            Q_EMIT stallCleared(it.key());
    }
}

QVector<history::Marker> ConsoleSession::markers(qint64 spanMs) const
{
    if (!m_store || !m_store->isOpen())
        return {};
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const qint64 span =
        spanMs > 0 ? spanMs : (m_hotWindow ? m_hotWindow->settings().windowMs : 3'600'000);
    // One indexed query (markers_by_time) of a small table: cheap on this thread.
    return m_store->markers(now - span, now + 60000);
}

void ConsoleSession::startDemo(const demo::DemoOptions &options)
{
    if (!m_demo) {
        m_demo = new demo::DemoCluster(this);
        connect(m_demo, &demo::DemoCluster::progressed, this, &ConsoleSession::demoProgressed);
        connect(m_demo, &demo::DemoCluster::upFinished, this,
                [this](bool ok, const QString &detail) {
                    m_demoState = ok ? DemoState::Running : DemoState::Stopped;
                    // Every service answers now: the watch's startup rounds again.
                    if (ok)
                        startOrFollowWatch(true);
                    Q_EMIT demoStarted(ok, detail);
                    if (m_shutdownRequested && requestShutdown())
                        Q_EMIT shutdownReady(true, QString());
                });
        // Watch the services from the moment they are written, so that a
        // person sees them go from down through starting to healthy.
        connect(m_demo, &demo::DemoCluster::inventoryWritten, this,
                [this](const QString &path) { Q_EMIT demoInventoryOpened(openInventory(path)); });
        connect(m_demo, &demo::DemoCluster::downFinished, this,
                [this](bool ok, const QString &message) {
                    m_demoState = DemoState::Stopped;
                    if (!ok)
                        spdlog::error("demo shutdown: {}", message.toStdString());
                    stop();
                    Q_EMIT shutdownReady(ok, message);
                });
    }
    m_demoDir = options.dir;
    m_demoState = DemoState::Starting;
    m_demo->up(options);
}

bool ConsoleSession::requestShutdown()
{
    m_shutdownRequested = true;
    switch (m_demoState) {
    case DemoState::Starting:
    case DemoState::Stopping:
        return false; // asked again when the start or the stop has finished
    case DemoState::Running:
        m_demoState = DemoState::Stopping;
        // Services going down on purpose must not raise alerts or notifications.
        m_alerts.reset();
        Q_EMIT demoProgressed(QStringLiteral("Stopping every process of the demo cluster …"));
        m_demo->down(m_demoDir);
        return false;
    case DemoState::None:
    case DemoState::Stopped:
        break;
    }
    stop(); // stop polling and flush history before the caller goes
    return true;
}

void ConsoleSession::stop()
{
    // Probes and checks end before the processes they probe go away.
    m_probeLab->stop();
    m_watch->stop();
    m_probeLab->cancelCheck();
    m_alerts.reset();
    m_poller.reset();
    // Results the poller queued before it stopped reach the writer (only the
    // recorder's own queued calls run here, no other event), then the final flush.
    if (m_recorder)
        QCoreApplication::sendPostedEvents(m_recorder, QEvent::MetaCall);
    if (m_writer)
        m_writer->stop();
    m_tick.stop();
}

} // namespace opsdeck::session
