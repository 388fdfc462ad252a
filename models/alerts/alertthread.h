#pragma once

#include "alertevaluator.h"
#include "endtoendprobe.h"
#include "inventory.h"
#include "workerthread.h"

#include <QVector>

namespace opsdeck::probes {
class ServicePoller;
}

namespace opsdeck::alerts {

class AlertCenter;

/// Owns the alert thread: an AlertEvaluator and one EndToEndProbe per
/// cluster watched by an e2e_failing rule (when alerts.e2e_interval_s > 0),
/// all on one worker thread, so neither rule evaluation nor probes touch the
/// GUI thread (the RAII holder of PollerThread, after qBittorrent).
/// Destroying it stops the probes, quits the thread and waits for it.
///
/// Wiring in the window (or the CLI):
///     AlertThread alerts;
///     alerts.connectPoller(pollerThread.poller()); // its answered batches
///     alerts.connectCenter(&alertCenter);          // banner model (GUI thread)
///     connect(&alertCenter, &AlertCenter::alertRaised, &notifier, &DesktopNotifier::notify);
///     connect(&alertCenter, &AlertCenter::alertCleared, &notifier, &DesktopNotifier::resolve);
///     alerts.setInventory(inventory);              // again after every reload
///
/// Thread: create, use and destroy from one thread (the GUI thread).
class AlertThread
{
public:
    AlertThread();
    ~AlertThread();
    AlertThread(const AlertThread &) = delete;
    AlertThread &operator=(const AlertThread &) = delete;

    /// The worker; connect to its signals with a context object (queued).
    AlertEvaluator *evaluator() const { return m_evaluator; }
    /// The current end-to-end probes (one per cluster watched by e2e_failing);
    /// replaced by setInventory(). Connect to probeFinished with a context
    /// object (queued) to show the last probe.
    const QVector<EndToEndProbe *> &probes() const { return m_probes; }
    /// Feeds the evaluator from `poller`'s signals (queued; the poller may live
    /// on any thread). Call once per poller.
    void connectPoller(probes::ServicePoller *poller);
    /// Sends raises and clears to `center` (queued, to its thread).
    void connectCenter(AlertCenter *center);
    /// Watches `inventory`'s rules; replaces the probes.
    void setInventory(const inventory::Inventory &inventory);
    /// The probes' settings from `inventory` (e2e_interval_s, e2e_timeout_s).
    static EndToEndProbe::Settings probeSettings(const inventory::Inventory &inventory);

private:
    void stopProbes();

    threads::WorkerThread m_thread{QStringLiteral("alerts")};
    AlertEvaluator *m_evaluator;
    QVector<EndToEndProbe *> m_probes;
};

} // namespace opsdeck::alerts
