#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace opsdeck::sim {

class PeerAgents;

/// The decode side of the simulated KV handoff for one PD request: handshake
/// with the prefill's bootstrap server (GET /route), then long-poll GET /kv
/// until the room's KV is ready.
///
/// Outcomes map onto SGLang's failure counters: no answer from the bootstrap
/// server (3 tries over ~0.5 s) is a bootstrap failure; a room that is not
/// ready within the timeout, or that the prefill reports failed, or a prefill
/// that vanishes mid-transfer, is a transfer failure. With a prefill whose
/// instance PeerAgents calls stale (nixl after a prefill-only restart) the
/// transfer hangs: nothing is polled until the timeout, then it is a transfer
/// failure. Blocking; runs on the decode's HTTP handler thread.
class KvReceiver
{
public:
    enum class Outcome
    {
        Ready,
        BootstrapFailed,
        TransferFailed,
        Aborted
    };
    struct Result
    {
        Outcome outcome = Outcome::Aborted;
        std::string detail;
        double waitedMs = 0.0;
    };

    /// `prefills`: this decode's memory of prefills (nullptr: none kept);
    /// `instanceId`: this decode's, sent in the handshake.
    KvReceiver(std::chrono::milliseconds timeout, PeerAgents *prefills, std::string instanceId)
        : m_timeout(timeout), m_prefills(prefills), m_instanceId(std::move(instanceId))
    {
    }
    /// This decode's listen address (HOST:PORT), sent in the handshake. Set
    /// once, before the server serves.
    void setAddress(std::string address) { m_address = std::move(address); }

    /// `onHandshake`: called once the bootstrap server answered (the request
    /// moves from the prealloc to the transfer queue). `keepGoing`: polled
    /// between calls; false (client gone, shutdown) ends with Aborted.
    Result receive(const std::string &host, int port, std::uint64_t room,
                   const std::function<void()> &onHandshake,
                   const std::function<bool()> &keepGoing) const;

private:
    std::chrono::milliseconds m_timeout;
    PeerAgents *m_prefills;
    std::string m_instanceId;
    std::string m_address;
};

} // namespace opsdeck::sim
