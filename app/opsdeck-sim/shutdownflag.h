#pragma once

#include <chrono>

namespace opsdeck::sim {

/// Process-wide "we are shutting down" flag (set on SIGTERM/SIGINT).
///
/// Every wait that could outlive a shutdown (fault stalls, think times, health
/// polls, retries) sleeps through sleepFor() so that SIGTERM ends it at once
/// instead of after its full duration. Thread-safe.
class ShutdownFlag
{
public:
    static void trigger();
    static bool triggered();
    /// Sleeps for `duration` unless shutdown is triggered first.
    /// Returns true when the full duration elapsed, false when interrupted.
    static bool sleepFor(std::chrono::milliseconds duration);
};

} // namespace opsdeck::sim
