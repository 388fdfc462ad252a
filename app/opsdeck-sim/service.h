#pragma once

#include <string>

namespace opsdeck::sim {

/// One role of the simulator (engine, router, proxy, traffic) as main() drives it.
/// start() and stop() are called from the main thread, once each.
class Service
{
public:
    virtual ~Service() = default;
    /// Binds and starts everything; logs the "listening on" line(s). On
    /// failure returns false with an error naming what failed (e.g. the port).
    virtual bool start(std::string &error) = 0;
    /// Stops servers and joins threads. Called after SIGTERM/SIGINT.
    virtual void stop() = 0;
    /// True when the service ended by itself (traffic with --duration/--requests).
    virtual bool finished() const { return false; }
};

} // namespace opsdeck::sim
