#pragma once

// BatchCheck's state shared with the engine's callbacks (batchcheck.cpp,
// batchcheckbatch.cpp); private to the two.
#include "batchcheck.h"
#include "probe.h"

#include <QString>
#include <QVector>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>

namespace opsdeck::probes {

class ProbeEngine;

/// Held through a shared_ptr: callbacks that arrive after run() returned
/// (a cancelled transfer reporting late) find it alive, or a weak_ptr gone.
struct BatchCheck::Shared
{
    ProbeEngine *engine = nullptr;
    std::mutex mutex;
    std::condition_variable changed;
    bool cancelled = false;
    QVector<quint64> inFlight;
    std::optional<ProbeResult> single; // the single request's (or /v1/models') answer
    QVector<std::optional<BatchRequestOutcome>> outcomes;
    int reported = 0; ///< outcomes stored
    int finished = 0; ///< outcomes stored and passed to Callbacks::requestFinished
};

/// ProbeRequest::timeoutMs's upper bound, ms (the single request's).
inline constexpr int batchMaxDeadlineMs = 600'000;
/// A batch request's own timeout outlasts the batch's deadline by this, ms, so
/// that the deadline (which marks the run timedOut) is what ends a hung batch;
/// hence the longest batch deadline, 590 s.
inline constexpr int batchTimeoutMarginMs = 10'000;

/// Why a probe of the check failed; empty when it succeeded (2xx, no error,
/// and for a stream a content token).
QString batchFailureOf(const ProbeResult &result);

} // namespace opsdeck::probes
