#include "democluster.h"

#include "healthwait.h"
#include "inventory.h"

#include <QFileInfo>

#include <spdlog/spdlog.h>

namespace opsdeck::workflows {

DemoCluster::DemoCluster(QObject *parent)
    : QObject(parent), m_local(QStringLiteral("local")),
      m_control([this](const QString &host) -> remote::Transport * {
          return host == u"local" ? &m_local : nullptr;
      }),
      m_health(new probes::HealthWait(this))
{
    connect(&m_control, &ProcessControl::progressed, this, &DemoCluster::progressed);
    connect(&m_control, &ProcessControl::startFinished, this, [this](bool ok, const QString &message) {
        if (!ok) {
            fail(message);
        } else if (m_phase == Phase::Starting) {
            m_phase = Phase::WaitingHealthy;
            Q_EMIT progressed(QStringLiteral("waiting until every service answers 200 on its health URL"));
            m_health->start(m_services, m_readyDeadlineMs);
        } else if (m_phase == Phase::StartingTraffic) {
            m_phase = Phase::Idle;
            Q_EMIT upFinished(true, m_inventoryPath);
        }
    });
    connect(&m_control, &ProcessControl::stopFinished, this, [this](bool ok, const QString &message) {
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
                if (!allHealthy) {
                    QStringList bad;
                    for (const auto &status : statuses)
                        if (status.state != probes::ServiceState::Healthy)
                            bad << QStringLiteral("%1 %2 (%3)").arg(status.name, stateName(status.state),
                                                                    status.detail);
                    return fail(QStringLiteral("not healthy after %1 s: %2; see the logs in %3/logs")
                                    .arg(m_readyDeadlineMs / 1000)
                                    .arg(bad.join(u", "), m_options.dir));
                }
                if (m_options.trafficClients <= 0) {
                    m_phase = Phase::Idle;
                    return Q_EMIT upFinished(true, m_inventoryPath);
                }
                m_phase = Phase::StartingTraffic;
                m_control.startAll({DemoSetup::trafficProcess(m_options.dir)});
            });
}

DemoCluster::~DemoCluster() = default;

QVector<ManagedProcess> DemoCluster::processesIn(const QString &dir, QString *problem) const
{
    const QString path = DemoSetup::inventoryPath(dir);
    if (!QFileInfo::exists(path))
        return {};
    const auto loaded = inventory::loadInventory(path);
    if (!loaded.inventory) {
        *problem = loaded.errors.isEmpty() ? path : loaded.errors.first().toString();
        return {};
    }
    QVector<ManagedProcess> processes;
    for (const auto &service : loaded.inventory->services)
        processes.append(ManagedProcess::fromService(service));
    processes.append(DemoSetup::trafficProcess(dir));
    return processes;
}

void DemoCluster::up(const DemoOptions &options)
{
    m_options = options;
    QString problem;
    const auto previous = processesIn(options.dir, &problem);
    if (!problem.isEmpty())
        spdlog::warn("previous demo inventory unreadable, not stopping it: {}", problem.toStdString());
    m_phase = Phase::Replacing;
    if (!previous.isEmpty())
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
    QVector<ManagedProcess> processes;
    for (const auto &service : std::as_const(m_services))
        processes.append(ManagedProcess::fromService(service));
    m_phase = Phase::Starting;
    Q_EMIT inventoryWritten(m_inventoryPath);
    m_control.startAll(processes);
}

void DemoCluster::fail(const QString &message)
{
    spdlog::error("demo: {}", message.toStdString());
    m_failure = message;
    m_phase = Phase::Failing;
    QString ignored;
    m_control.stopAll(processesIn(m_options.dir, &ignored));
}

void DemoCluster::down(const QString &dir)
{
    QString problem;
    const auto processes = processesIn(dir, &problem);
    if (!problem.isEmpty()) {
        m_phase = Phase::Idle;
        return Q_EMIT downFinished(false, QStringLiteral("cannot read the demo inventory: ") + problem);
    }
    m_phase = Phase::Down;
    m_control.stopAll(processes);
}

} // namespace opsdeck::workflows
