#pragma once

#include "servicepoller.h"

#include <QElapsedTimer>
#include <QObject>

namespace opsdeck::probes {

/// Checks the health of a set of services until every one is healthy or a
/// deadline passes, then emits finished() with the last status of each (in
/// the order given). With a zero deadline it is a single round: each service
/// is checked once. Used by `opsdeck-cli status` and by the demo before it
/// sends traffic. Thread: any thread with an event loop; never blocks.
class HealthWait : public QObject
{
    Q_OBJECT
public:
    explicit HealthWait(QObject *parent = nullptr);

    void start(const QVector<inventory::Service> &services, int deadlineMs, int timeoutMs = 2000);
    /// Stops checking; finished() is not emitted for this round.
    void cancel();

Q_SIGNALS:
    /// `allHealthy` is true when every service answered 200 on its last check.
    void finished(bool allHealthy, const QVector<opsdeck::probes::ServiceStatus> &statuses);

private:
    void checked(const ServiceStatus &status);
    ServicePoller m_poller;
    QVector<ServiceStatus> m_statuses;
    QElapsedTimer m_clock;
    int m_deadlineMs = 0;
    bool m_done = false;
};

} // namespace opsdeck::probes
