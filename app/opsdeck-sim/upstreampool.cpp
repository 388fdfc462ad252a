#include "upstreampool.h"

namespace opsdeck::sim {

UpstreamPool::UpstreamPool(Url upstream, Settings settings)
    : m_upstream(std::move(upstream)), m_settings(settings)
{
}

UpstreamPool::Lease UpstreamPool::acquire()
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_idle.empty()) {
            Idle idle = std::move(m_idle.back());
            m_idle.pop_back();
            idle.lease.idleMs = std::chrono::duration<double, std::milli>(
                                    std::chrono::steady_clock::now() - idle.since)
                                    .count();
            return std::move(idle.lease);
        }
    }
    Lease lease;
    lease.connects = std::make_shared<std::atomic<long>>(0);
    lease.client = std::make_unique<httplib::Client>(m_upstream.host(), m_upstream.port());
    httplib::Client &client = *lease.client;
    client.set_keep_alive(true);
    // httplib sends headers and body in two writes; Nagle would hold the body
    // for the upstream's delayed ACK (40 ms per forwarded request).
    client.set_tcp_nodelay(true);
    client.set_connection_timeout(m_settings.connectTimeout);
    client.set_read_timeout(m_settings.readTimeout);
    client.set_write_timeout(m_settings.writeTimeout);
    // Bodies are relayed as they are; decompressing and recompressing them
    // would only cost CPU (requests also ask for identity).
    client.set_decompress(false);
    // Replaces httplib's client socket options (address reuse, which only a
    // listening socket needs) with a count of the connections it opens.
    client.set_socket_options([connects = lease.connects](socket_t) { ++*connects; });
    return lease;
}

void UpstreamPool::release(Lease lease, bool reusable)
{
    if (!reusable || !lease.client)
        return;
    lease.idleMs = -1;
    std::lock_guard lock(m_mutex);
    if (m_idle.size() < m_settings.maxIdle)
        m_idle.push_back({std::move(lease), std::chrono::steady_clock::now()});
}

} // namespace opsdeck::sim
