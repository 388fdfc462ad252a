#pragma once

#include <string>

namespace opsdeck::sim {

/// The client-side proxy fault of the incident: `--fault reused-stall=S
/// --fault-after N`. A request arriving on a client connection that has
/// already served N requests waits S seconds before it is handled or
/// forwarded; requests on fresh connections pass at once.
///
/// How the connection is known: httplib 0.11 serves every request of one
/// connection on one worker thread, sequentially, and HttpServer's
/// connection loop keeps a thread_local record of that connection (socket and
/// request count), so HttpServer::currentRequestIndex() is exact — no guess
/// from the remote address and port is needed.
///
/// Thread-safe (immutable); apply() runs on handler threads and returns early
/// on shutdown.
class StallFault
{
public:
    StallFault(double stallS, int after) : m_stallS(stallS), m_after(after) {}

    bool enabled() const { return m_stallS > 0; }
    /// Stalls the calling handler when its connection is reused past N.
    /// Returns the seconds actually waited (0 when the request passed at once).
    double apply() const;
    /// One line for the start log.
    std::string describe() const;

private:
    double m_stallS;
    int m_after;
};

} // namespace opsdeck::sim
