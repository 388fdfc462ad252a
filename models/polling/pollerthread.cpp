#include "pollerthread.h"

namespace opsdeck::probes {

PollerThread::PollerThread() : m_poller(m_thread.adopt(new ServicePoller)) {}

PollerThread::~PollerThread()
{
    QMetaObject::invokeMethod(m_poller, &ServicePoller::stop, Qt::QueuedConnection);
    m_thread.stop();
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
