#pragma once

#include "probe.h"

#include <QVector>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace opsdeck::probes {

class ProbeEngine;

/// Probes sent together and awaited together: the probe rounds, the staged
/// verification and the batch check all need "these N at once, every one
/// back, stoppable at any moment", and the waiting and cancelling is subtle
/// enough to live in one place.
///
/// runAll() submits every request to the engine at once and blocks until each
/// has answered, the optional deadline passes, or cancel() is called; then it
/// cancels what is still in flight and waits up to 3 s for those to report
/// (the engine reports a cancel at once). Every request gets exactly one
/// result, in request order: its answer, or a synthesised cancelled result
/// whose error says why ("no answer before the deadline", "cancelled").
///
/// cancel() is sticky: a runAll() after it returns at once with every result
/// cancelled, so a sequence of steps stops at the next step.
///
/// Thread: runAll() blocks the calling thread (a worker, never the GUI's);
/// cancel() and isCancelled() from any thread. The engine must outlive the
/// group; answers that arrive after the group is gone are dropped safely.
class ProbeGroup
{
public:
    using Clock = std::chrono::steady_clock;

    struct Options
    {
        /// Ends the wait; requests still in flight are then cancelled and the
        /// outcome is timedOut. Unset: each request's own timeoutMs bounds
        /// it, and the wait ends 5 s after the longest of them at the latest.
        std::optional<Clock::time_point> deadline;
        /// Each answer, on the engine's thread, with how many have answered
        /// so far (1..N). runAll() returns only after every call returned.
        std::function<void(int index, const ProbeResult &result, int answered)> onAnswer;
        /// Called on runAll()'s thread at 0, tickInterval, 2 x tickInterval...
        /// after the submission while answers are outstanding (the batch
        /// check samples the decode's running requests there).
        std::chrono::milliseconds tickInterval{0};
        std::function<void(std::chrono::milliseconds sinceSubmission)> onTick;
    };

    struct Outcome
    {
        QVector<ProbeResult> results; ///< one per request, in request order
        /// When each answered, ms after the submission; -1 for a synthesised result.
        QVector<double> answeredAtMs;
        double elapsedMs = 0;   ///< submission to the end of the wait, ms
        bool timedOut = false;  ///< the deadline passed with answers outstanding
        bool cancelled = false; ///< cancel() was called before or during the wait
    };

    explicit ProbeGroup(ProbeEngine &engine);
    ~ProbeGroup();
    ProbeGroup(const ProbeGroup &) = delete;
    ProbeGroup &operator=(const ProbeGroup &) = delete;

    Outcome runAll(QVector<ProbeRequest> requests, Options options);
    /// runAll() without a deadline, callbacks or ticks.
    Outcome runAll(QVector<ProbeRequest> requests);
    /// runAll() of one request, its result.
    ProbeResult runOne(ProbeRequest request);
    void cancel();
    bool isCancelled() const;

private:
    struct State;
    ProbeEngine &m_engine;
    std::shared_ptr<State> m_state;
};

} // namespace opsdeck::probes
