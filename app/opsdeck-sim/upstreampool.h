#pragma once

#include "url.h"

#include <chrono>
#include <httplib.h>
#include <memory>
#include <mutex>
#include <vector>

namespace opsdeck::sim {

/// Kept-alive httplib clients to one upstream (a worker, the router behind a
/// proxy). httplib::Client serves one request at a time, so a forwarded
/// request checks a client out, and returns it afterwards when its
/// connection is still good; that gives real connection reuse towards the
/// upstream, as a production proxy has. Thread-safe.
class UpstreamPool
{
public:
    struct Settings
    {
        std::chrono::seconds readTimeout{600}; ///< longer than the longest completion
        std::chrono::seconds connectTimeout{5};
        std::chrono::seconds writeTimeout{30};
        size_t maxIdle = 256;
    };

    UpstreamPool(Url upstream, Settings settings);

    const Url &upstream() const { return m_upstream; }
    /// A kept client when one is idle, else a new one. `idleMs` (when given)
    /// gets how long the kept connection was idle, ms, or -1 for a new client:
    /// a failed exchange says which it had.
    std::unique_ptr<httplib::Client> acquire(double *idleMs = nullptr);
    /// `reusable`: the exchange completed cleanly, so the connection may serve another.
    void release(std::unique_ptr<httplib::Client> client, bool reusable);

private:
    const Url m_upstream;
    const Settings m_settings;
    std::mutex m_mutex;
    struct Idle
    {
        std::unique_ptr<httplib::Client> client;
        std::chrono::steady_clock::time_point since;
    };
    std::vector<Idle> m_idle;
};

} // namespace opsdeck::sim
