#pragma once

#include "probelab.h"

#include <atomic>
#include <functional>
#include <mutex>

namespace opsdeck::probes {

/// A worker's run as its owner (the GUI thread) sees it: a stop request, and
/// how to reach the running ProbeRounds / StagedVerification / BatchCheck,
/// which live on the worker's stack (set while it runs, cleared before it goes).
struct CancellableRun
{
    std::mutex mutex;
    bool stopRequested = false;
    std::function<void()> cancel; ///< guarded by `mutex`

    /// From the GUI thread: stops the run now or as soon as it starts.
    void requestStop()
    {
        const std::lock_guard lock(mutex);
        stopRequested = true;
        if (cancel)
            cancel();
    }
    /// From the worker: makes `stop` reachable; false when a stop came first.
    bool attach(std::function<void()> stop)
    {
        const std::lock_guard lock(mutex);
        if (stopRequested)
            return false;
        cancel = std::move(stop);
        return true;
    }
    void detach()
    {
        const std::lock_guard lock(mutex);
        cancel = nullptr;
    }
    bool stopped()
    {
        const std::lock_guard lock(mutex);
        return stopRequested;
    }
};

/// The probe lab's runs: a batch check also tells when its batch was submitted.
struct ProbeLab::Job : CancellableRun
{
    /// Wall clock of the batch's submission, ms since the Unix epoch; 0 until
    /// the first running sample tells it (engine threads).
    std::atomic<qint64> batchStartMs{0};
};

} // namespace opsdeck::probes
