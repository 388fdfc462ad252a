#pragma once

// What batchcheck.cpp and batchcheckbatch.cpp share; private to the two.
#include "batchcheck.h"
#include "probe.h"

#include <QString>

namespace opsdeck::probes {

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
