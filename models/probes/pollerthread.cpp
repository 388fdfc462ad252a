#include "pollerthread.h"

namespace opsdeck::probes {

PollerThread::PollerThread() : m_poller(new ServicePoller)
{
    m_thread.setObjectName(QStringLiteral("poller"));
    m_poller->moveToThread(&m_thread);
    QObject::connect(&m_thread, &QThread::finished, m_poller, &QObject::deleteLater);
    m_thread.start();
}

PollerThread::~PollerThread()
{
    QMetaObject::invokeMethod(m_poller, &ServicePoller::stop, Qt::QueuedConnection);
    m_thread.quit();
    m_thread.wait();
}

void PollerThread::setServices(const QVector<inventory::Service> &services)
{
    QMetaObject::invokeMethod(
        m_poller, [poller = m_poller, services] { poller->setServices(services); },
        Qt::QueuedConnection);
}

void PollerThread::start()
{
    QMetaObject::invokeMethod(m_poller, &ServicePoller::start, Qt::QueuedConnection);
}

} // namespace opsdeck::probes
