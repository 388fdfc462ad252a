#include "alertthread.h"

#include "alertcenter.h"
#include "servicepoller.h"

namespace opsdeck::alerts {

AlertThread::AlertThread() : m_evaluator(m_thread.adopt(new AlertEvaluator)) {}

AlertThread::~AlertThread()
{
    stopProbes();
    m_thread.stop();
}

void AlertThread::connectPoller(probes::ServicePoller *poller)
{
    // The evaluator is the context: each slot runs on the alert thread.
    QObject::connect(poller, &probes::ServicePoller::answered, m_evaluator,
                     &AlertEvaluator::addAnswers);
}

void AlertThread::connectCenter(AlertCenter *center)
{
    QObject::connect(m_evaluator, &AlertEvaluator::alertRaised, center, &AlertCenter::raise);
    QObject::connect(m_evaluator, &AlertEvaluator::alertCleared, center, &AlertCenter::clear);
}

EndToEndProbe::Settings AlertThread::probeSettings(const inventory::Inventory &inventory)
{
    EndToEndProbe::Settings settings;
    settings.intervalMs = inventory.alerts.e2eIntervalS * 1000;
    settings.timeoutMs = inventory.alerts.e2eTimeoutS * 1000;
    return settings;
}

void AlertThread::setInventory(const inventory::Inventory &inventory)
{
    const QVector<AlertWatch> watches = AlertWatch::fromInventory(inventory);
    QMetaObject::invokeMethod(
        m_evaluator, [evaluator = m_evaluator, watches] { evaluator->setWatches(watches); },
        Qt::QueuedConnection);
    stopProbes();
    const EndToEndProbe::Settings settings = probeSettings(inventory);
    if (settings.intervalMs <= 0)
        return;
    for (const AlertWatch &watch : watches) {
        if (watch.kind != inventory::AlertKind::E2eFailing)
            continue;
        auto *probe = m_thread.adopt(new EndToEndProbe(watch.target, watch.entry, settings));
        QObject::connect(probe, &EndToEndProbe::probeFinished, m_evaluator,
                         &AlertEvaluator::addProbeResult);
        QMetaObject::invokeMethod(probe, &EndToEndProbe::start, Qt::QueuedConnection);
        m_probes.append(probe);
    }
}

void AlertThread::stopProbes()
{
    // deleteLater runs on the alert thread, where the probes live; a request
    // still in flight is cancelled with them and its result never arrives.
    for (EndToEndProbe *probe : std::as_const(m_probes))
        probe->deleteLater();
    m_probes.clear();
}

} // namespace opsdeck::alerts
