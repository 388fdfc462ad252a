#pragma once

#include "servicepoller.h"
#include "workerthread.h"

namespace opsdeck::probes {

/// Owns a ServicePoller and the thread it runs on (threads::WorkerThread).
/// Destroying it stops polling, quits the thread and waits for it.
/// Thread: create, use and destroy from one thread (the GUI thread).
class PollerThread
{
public:
    PollerThread();
    ~PollerThread();
    PollerThread(const PollerThread &) = delete;
    PollerThread &operator=(const PollerThread &) = delete;

    /// The worker; connect to its signals with a context object, call its
    /// slots with QMetaObject::invokeMethod (queued).
    ServicePoller *poller() const { return m_poller; }
    void setServices(const QVector<inventory::Service> &services);
    void start();

private:
    threads::WorkerThread m_thread{QStringLiteral("poller")};
    ServicePoller *m_poller;
};

} // namespace opsdeck::probes
