#pragma once

#include "servicepoller.h"

#include <QThread>

namespace opsdeck::probes {

/// Owns a ServicePoller and the thread it runs on (qBittorrent's pattern: a
/// worker moved to a thread owned by a small RAII holder). Destroying it
/// stops polling, quits the thread and waits for it.
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
    QThread m_thread;
    ServicePoller *m_poller;
};

} // namespace opsdeck::probes
