#include "democluster.h"

#include "apppaths.h"
#include "healthwait.h"
#include "inventory.h"
#include "privatefiles.h"
#include "shellquote.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <spdlog/spdlog.h>

namespace opsdeck::demo {

DemoCluster::DemoCluster(QObject *parent)
    : QObject(parent), m_local(QStringLiteral("local")),
      m_control([this](const QString &host) -> remote::Transport * {
          return host == u"local" ? &m_local : nullptr;
      }),
      m_health(new probes::HealthWait(this)), m_aliveTimer(new QTimer(this))
{
    // A service that exits during start-up (port taken, bad flag) fails the
    // start at once, with its log, instead of at the health deadline.
    // The folder is free again once an up() or down() has finished.
    connect(this, &DemoCluster::upFinished, this, [this] { m_lock.reset(); });
    connect(this, &DemoCluster::downFinished, this, [this] { m_lock.reset(); });
    m_aliveTimer->setInterval(500);
    connect(m_aliveTimer, &QTimer::timeout, this, [this] {
        if (m_phase == Phase::WaitingRecorder)
            return checkRecorder();
        m_control.checkRunning(processesOf(m_services));
    });
    connect(&m_control, &processes::ProcessControl::runningChecked, this,
            [this](const QStringList &notRunning) {
                if (notRunning.isEmpty())
                    return;
                if (m_phase == Phase::WaitingHealthy) {
                    m_aliveTimer->stop();
                    fail(QStringLiteral("%1 exited during start-up. %2")
                             .arg(notRunning.join(u", "), logTails(notRunning)));
                } else if (m_phase == Phase::WaitingRecorder) {
                    m_aliveTimer->stop();
                    // What it said last may be the line that it records.
                    if (recorderRecords())
                        return recorderReady();
                    fail(QStringLiteral("the recorder exited at once: history is not recorded. %1")
                             .arg(logTails(notRunning)));
                }
            });
    connect(&m_control, &processes::ProcessControl::progressed, this, &DemoCluster::progressed);
    connect(&m_control, &processes::ProcessControl::startFinished, this,
            [this](bool ok, const QString &message) {
                if (!ok) {
                    fail(message);
                } else if (m_phase == Phase::Starting) {
                    m_phase = Phase::WaitingHealthy;
                    Q_EMIT progressed(QStringLiteral(
                        "waiting until every service answers 200 on its health URL"));
                    m_health->start(m_services, m_readyDeadlineMs);
                    m_aliveTimer->start();
                } else if (m_phase == Phase::StartingTraffic && !m_recorderProgram.isEmpty()) {
                    m_phase = Phase::WaitingRecorder;
                    Q_EMIT progressed(QStringLiteral("waiting until the recorder records"));
                    m_aliveTimer->start();
                } else if (m_phase == Phase::StartingTraffic) {
                    m_phase = Phase::Idle;
                    Q_EMIT upFinished(true, m_inventoryPath);
                }
            });
    connect(&m_control, &processes::ProcessControl::stopFinished, this,
            [this](bool ok, const QString &message) {
                switch (m_phase) {
                case Phase::Replacing:
                    if (!ok)
                        return fail(QStringLiteral("the previous demo did not stop: ") + message);
                    return startServices();
                case Phase::Failing:
                    m_phase = Phase::Idle;
                    return Q_EMIT upFinished(false, m_failure);
                case Phase::Down:
                    m_phase = Phase::Idle;
                    return Q_EMIT downFinished(ok, message);
                default:
                    return;
                }
            });
    connect(m_health, &probes::HealthWait::finished, this,
            [this](bool allHealthy, const QVector<probes::ServiceStatus> &statuses) {
                m_aliveTimer->stop();
                if (m_phase != Phase::WaitingHealthy)
                    return; // already failed
                if (!allHealthy) {
                    QStringList bad;
                    QStringList names;
                    for (const auto &status : statuses) {
                        if (status.state == probes::ServiceState::Healthy)
                            continue;
                        bad << QStringLiteral("%1 %2 (%3)")
                                   .arg(status.name, stateName(status.state), status.detail);
                        names << status.name;
                    }
                    return fail(QStringLiteral("not healthy after %1 s: %2. %3")
                                    .arg(m_readyDeadlineMs / 1000)
                                    .arg(bad.join(u", "), logTails(names)));
                }
                QVector<processes::ManagedProcess> helpers;
                if (m_options.trafficClients > 0)
                    helpers.append(DemoSetup::trafficProcess(m_options.dir, simProgram()));
                // Recorded from healthy on: start-up noise is not history worth keeping.
                if (!m_recorderProgram.isEmpty())
                    helpers.append(recorderProcess(m_options.dir, m_recorderProgram));
                if (helpers.isEmpty()) {
                    m_phase = Phase::Idle;
                    return Q_EMIT upFinished(true, m_inventoryPath);
                }
                m_phase = Phase::StartingTraffic;
                m_recorderLogFrom = QFileInfo(recorderLog()).size();
                m_recorderWait.start();
                m_control.startAll(helpers);
            });
}

DemoCluster::~DemoCluster() = default;

QVector<processes::ManagedProcess> DemoCluster::processesIn(const QString &dir,
                                                            QString *problem) const
{
    const QString path = DemoSetup::inventoryPath(dir);
    if (!QFileInfo::exists(path)) {
        // Services can only be stopped through the inventory that names them.
        const QStringList pidFiles =
            QDir(dir + QStringLiteral("/run")).entryList({QStringLiteral("*.pid")}, QDir::Files);
        if (!pidFiles.isEmpty())
            *problem = QStringLiteral("%1 is missing but %2/run holds pid files (%3): their "
                                      "services cannot be stopped safely; put the inventory back")
                           .arg(path, dir, pidFiles.join(QStringLiteral(", ")));
        return {DemoSetup::trafficProcess(dir, simProgram()),
                recorderProcess(dir, m_recorderProgram.isEmpty() ? QStringLiteral("opsdeck-cli")
                                                                 : m_recorderProgram)};
    }
    const auto loaded = inventory::loadInventory(path);
    if (!loaded.inventory) {
        *problem = loaded.errors.isEmpty() ? path : loaded.errors.first().toString();
        return {};
    }
    QVector<processes::ManagedProcess> processes = processesOf(loaded.inventory->services);
    // Only this folder's processes: an inventory copied from another demo
    // names that demo's pid files, and its services are not ours to stop.
    const QDir run(dir + QStringLiteral("/run"));
    QStringList elsewhere;
    for (const processes::ManagedProcess &process : std::as_const(processes)) {
        if (QFileInfo(process.pidFile).absolutePath() != run.absolutePath())
            elsewhere.append(process.pidFile);
    }
    if (!elsewhere.isEmpty()) {
        *problem = QStringLiteral("%1 names pid files outside %2/run (%3): not this folder's "
                                  "demo, nothing stopped; run `demo down` in the folder that "
                                  "holds them")
                       .arg(path, dir, elsewhere.join(QStringLiteral(", ")));
        return {};
    }
    // Every pid file in run/ must be a service the inventory names: one it does
    // not (an inventory replaced) could not be stopped, and would be orphaned.
    QStringList unnamed;
    for (const QFileInfo &pidFile :
         QDir(dir + QStringLiteral("/run")).entryInfoList({QStringLiteral("*.pid")}, QDir::Files)) {
        const bool named = std::any_of(
            processes.cbegin(), processes.cend(),
            [&](const processes::ManagedProcess &p) { return QFileInfo(p.pidFile) == pidFile; });
        if (!named && pidFile.fileName() != u"traffic.pid")
            unnamed.append(pidFile.fileName());
    }
    if (!unnamed.isEmpty()) {
        *problem = QStringLiteral("%1 does not name the services of %2/run (%3): they cannot be "
                                  "stopped safely; put the demo's inventory back")
                       .arg(path, dir, unnamed.join(QStringLiteral(", ")));
        return {};
    }
    processes.append(DemoSetup::trafficProcess(dir, simProgram()));
    // Stopped whether or not this DemoCluster started it: the command line may have.
    processes.append(recorderProcess(QFileInfo(path).absolutePath(),
                                     m_recorderProgram.isEmpty() ? QStringLiteral("opsdeck-cli")
                                                                 : m_recorderProgram));
    return processes;
}

processes::ManagedProcess DemoCluster::recorderProcess(const QString &dir, const QString &program)
{
    processes::ManagedProcess process;
    process.program = QFileInfo(program).fileName();
    process.name = QStringLiteral("recorder");
    process.host = QStringLiteral("local");
    // Beside run/, not in it: run/ holds the cluster's own processes.
    process.pidFile = dir + QStringLiteral("/recorder.pid");
    process.requireIdentity = true;
    process.start =
        QStringLiteral("umask 077; setsid %1 record --inventory %2 --data-dir %3 --pid-file %4 "
                       "</dev/null >>%5 2>&1 & echo $! >%4")
            .arg(shell::singleQuoted(program), shell::singleQuoted(DemoSetup::inventoryPath(dir)),
                 shell::singleQuoted(dir), shell::singleQuoted(process.pidFile),
                 shell::singleQuoted(dir + QStringLiteral("/logs/recorder.log")));
    process.deriveMissingCommands();
    return process;
}

QString DemoCluster::simProgram() const
{
    return QFileInfo(m_options.simBinary.isEmpty() ? settings::AppPaths::simBinary()
                                                   : m_options.simBinary)
        .fileName();
}

QVector<processes::ManagedProcess>
DemoCluster::processesOf(const QVector<inventory::Service> &services) const
{
    // The demo starts every one of its processes: only the one whose identity
    // was written at its start is ours.
    QVector<processes::ManagedProcess> processes;
    for (const auto &service : services) {
        processes::ManagedProcess process =
            processes::ManagedProcess::fromService(service, simProgram());
        process.requireIdentity = true;
        process.deriveMissingCommands();
        processes.append(process);
    }
    return processes;
}

bool DemoCluster::lockFolder(const QString &dir, QString *error)
{
    if (!settings::PrivateFiles::makeDir(dir, error))
        return false;
    // A file of the person's under that name is not a lock to take over:
    // QLockFile removes one whose first line is a pid no longer running. In
    // a folder that is not (yet) a demo's, only one shaped as QLockFile
    // writes it (pid, program, host) is taken for a lock.
    const QString path = dir + QStringLiteral("/demo.lock");
    const QFileInfo held(path);
    QFile text(path);
    const QList<QByteArray> lines = held.isFile() && text.open(QIODevice::ReadOnly)
                                        ? text.read(1024).split('\n')
                                        : QList<QByteArray>();
    bool pidFirst = false;
    if (!lines.isEmpty())
        lines.first().toLongLong(&pidFirst);
    const bool lockShaped =
        pidFirst && lines.size() >= 4 && !lines.at(1).isEmpty() && !lines.at(2).isEmpty();
    // (Empty: one being written, or nothing to lose.)
    if (held.isSymLink() ||
        (held.exists() && held.size() > 0 && !DemoSetup::isDemos(dir) && !lockShaped)) {
        *error = QStringLiteral("%1 is not a demo's lock (%2): not removed; move it away")
                     .arg(path, held.isSymLink() ? QStringLiteral("a link")
                                                 : QStringLiteral("the folder is not a demo's"));
        return false;
    }
    auto lock = std::make_unique<QLockFile>(path);
    lock->setStaleLockTime(0); // stale only when its process is gone: an up() may take minutes
    if (!lock->tryLock(0)) {
        qint64 pid = 0;
        QString host;
        QString app;
        lock->getLockInfo(&pid, &host, &app);
        *error = QStringLiteral("another demo up or down is running on %1 (pid %2): wait for it, "
                                "then try again")
                     .arg(dir)
                     .arg(pid);
        return false;
    }
    m_lock = std::move(lock);
    return true;
}

void DemoCluster::up(const DemoOptions &options)
{
    m_options = options;
    QString problem;
    if (!lockFolder(options.dir, &problem)) {
        QTimer::singleShot(0, this, [this, problem] { Q_EMIT upFinished(false, problem); });
        return;
    }
    const auto previous = processesIn(options.dir, &problem);
    if (!problem.isEmpty()) {
        // Replacing it would orphan processes nobody could stop any more.
        QTimer::singleShot(0, this, [this, problem] {
            Q_EMIT upFinished(false,
                              QStringLiteral("cannot replace the demo already there: ") + problem);
        });
        return;
    }
    m_phase = Phase::Replacing;
    if (QFileInfo::exists(DemoSetup::inventoryPath(options.dir)))
        Q_EMIT progressed(QStringLiteral("replacing the demo already in %1").arg(options.dir));
    m_control.stopAll(previous);
}

void DemoCluster::startServices()
{
    QString error;
    const auto path = DemoSetup::write(m_options, &error);
    if (!path) {
        m_phase = Phase::Idle;
        return Q_EMIT upFinished(false, error);
    }
    const auto loaded = inventory::loadInventory(*path);
    if (!loaded.inventory) {
        m_phase = Phase::Idle;
        return Q_EMIT upFinished(false, loaded.errors.first().toString());
    }
    m_inventoryPath = *path;
    m_services = loaded.inventory->services;
    m_phase = Phase::Starting;
    Q_EMIT inventoryWritten(m_inventoryPath);
    m_control.startAll(processesOf(m_services));
}

QString DemoCluster::logTails(const QStringList &names) const
{
    QStringList parts;
    for (const QString &name : names) {
        const QString path =
            m_options.dir + QStringLiteral("/logs/") + name + QStringLiteral(".log");
        QFile file(path);
        QStringList lines;
        if (file.open(QIODevice::ReadOnly))
            lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        parts << QStringLiteral("%1 (%2): %3")
                     .arg(name, path,
                          lines.isEmpty()
                              ? QStringLiteral("log is empty")
                              : lines.mid(std::max<qsizetype>(0, lines.size() - 3)).join(u" | "));
    }
    return parts.join(u"; ");
}

QString DemoCluster::recorderLog() const
{
    return m_options.dir + QStringLiteral("/logs/recorder.log");
}

bool DemoCluster::recorderRecords() const
{
    QFile log(recorderLog());
    return log.open(QIODevice::ReadOnly) && log.seek(m_recorderLogFrom) &&
           log.read(64 * 1024).contains("opsdeck-cli: recording ");
}

void DemoCluster::recorderReady()
{
    m_aliveTimer->stop();
    m_phase = Phase::Idle;
    Q_EMIT upFinished(true, m_inventoryPath);
}

void DemoCluster::checkRecorder()
{
    if (recorderRecords())
        return recorderReady();
    if (m_recorderWait.hasExpired(kRecorderDeadlineMs)) {
        m_aliveTimer->stop();
        return fail(QStringLiteral("the recorder did not say it records in %1 s: history may not "
                                   "be recorded. %2")
                        .arg(kRecorderDeadlineMs / 1000)
                        .arg(logTails({QStringLiteral("recorder")})));
    }
    m_control.checkRunning({recorderProcess(m_options.dir, m_recorderProgram)});
}

void DemoCluster::fail(const QString &message)
{
    spdlog::error("demo: {}", message.toStdString());
    m_aliveTimer->stop();
    m_health->cancel();
    m_failure = message;
    m_phase = Phase::Failing;
    QString ignored;
    m_control.stopAll(processesIn(m_options.dir, &ignored));
}

void DemoCluster::down(const QString &dir)
{
    QString problem;
    if (!lockFolder(dir, &problem)) {
        m_phase = Phase::Idle;
        QTimer::singleShot(0, this, [this, problem] { Q_EMIT downFinished(false, problem); });
        return;
    }
    const auto processes = processesIn(dir, &problem);
    if (!problem.isEmpty()) {
        m_phase = Phase::Idle;
        // Later, as every other answer: the caller may not listen yet.
        QTimer::singleShot(0, this, [this, problem] {
            Q_EMIT downFinished(false, QStringLiteral("cannot stop the demo: ") + problem);
        });
        return;
    }
    m_phase = Phase::Down;
    m_control.stopAll(processes);
}

} // namespace opsdeck::demo
