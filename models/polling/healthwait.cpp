#include "healthwait.h"

namespace opsdeck::probes {

HealthWait::HealthWait(QObject *parent) : QObject(parent)
{
    connect(&m_poller, &ServicePoller::statusChecked, this, &HealthWait::checked);
}

void HealthWait::start(const QVector<inventory::Service> &services, int deadlineMs, int timeoutMs)
{
    m_statuses.clear();
    m_done = false;
    for (const auto &service : services) {
        m_statuses.append(ServiceStatus::unchecked(service));
    }
    m_deadlineMs = deadlineMs;
    m_clock.start();
    ServicePoller::Settings settings;
    settings.timeoutMs = timeoutMs;
    settings.intervalMs = 250;
    settings.pollDecodeLoad = false;
    settings.pollMetrics = false;
    settings.logTransitions = false;
    m_poller.setSettings(settings);
    m_poller.setServices(services);
    if (services.isEmpty()) {
        m_done = true;
        Q_EMIT finished(true, m_statuses);
        return;
    }
    m_poller.start();
}

void HealthWait::cancel()
{
    m_done = true;
    m_poller.stop();
}

void HealthWait::checked(const ServiceStatus &checkedStatus)
{
    if (m_done)
        return;
    bool allChecked = true;
    bool allHealthy = true;
    for (auto &status : m_statuses) {
        if (status.name == checkedStatus.name)
            status = checkedStatus;
        allChecked = allChecked && status.lastCheck.isValid();
        allHealthy = allHealthy && status.state == ServiceState::Healthy;
    }
    if (!allChecked)
        return;
    if (allHealthy || m_clock.elapsed() >= m_deadlineMs) {
        m_done = true;
        m_poller.stop();
        Q_EMIT finished(allHealthy, m_statuses);
    }
}

} // namespace opsdeck::probes
