#pragma once

#include "url.h"

#include <atomic>
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

    /// A client checked out for one exchange.
    struct Lease
    {
        std::unique_ptr<httplib::Client> client;
        /// Connections this client opened so far (counted as httplib creates
        /// its sockets): unchanged across an exchange means it went on the
        /// kept one, since httplib silently reconnects when that had closed.
        std::shared_ptr<std::atomic<long>> connects;
        double idleMs = -1; ///< how long it waited in the pool, ms; -1 when new
    };

    const Url &upstream() const { return m_upstream; }
    /// A kept client when one is idle, else a new one.
    Lease acquire();
    /// `reusable`: the exchange completed cleanly, so the connection may serve another.
    void release(Lease lease, bool reusable);

private:
    const Url m_upstream;
    const Settings m_settings;
    std::mutex m_mutex;
    struct Idle
    {
        Lease lease;
        std::chrono::steady_clock::time_point since;
    };
    std::vector<Idle> m_idle;
};

} // namespace opsdeck::sim
