#include "stallfault.h"

#include "httpserver.h"
#include "shutdownflag.h"

#include <chrono>

namespace opsdeck::sim {

double StallFault::apply() const
{
    if (!enabled() || HttpServer::currentRequestIndex() <= m_after)
        return 0;
    using namespace std::chrono;
    const auto start = steady_clock::now();
    ShutdownFlag::sleepFor(milliseconds(static_cast<long>(m_stallS * 1000)));
    return duration<double>(steady_clock::now() - start).count();
}

std::string StallFault::describe() const
{
    if (!enabled())
        return "fault: none";
    return "fault: reused-stall=" + std::to_string(m_stallS) +
           " s for every request after the first " + std::to_string(m_after) +
           " on a client connection (fresh connections pass at once)";
}

} // namespace opsdeck::sim
