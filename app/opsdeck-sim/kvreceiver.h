#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace opsdeck::sim {

/// The decode side of the simulated KV handoff for one PD request: handshake
/// with the prefill's bootstrap server (GET /route), then long-poll GET /kv
/// until the room's KV is ready.
///
/// Outcomes map onto SGLang's failure counters: no answer from the bootstrap
/// server (3 tries over ~0.5 s) is a bootstrap failure; a room that is not
/// ready within the timeout, or that the prefill reports failed, or a prefill
/// that vanishes mid-transfer, is a transfer failure. Blocking; runs on the
/// decode's HTTP handler thread.
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

    explicit KvReceiver(std::chrono::milliseconds timeout) : m_timeout(timeout) {}

    /// `onHandshake`: called once the bootstrap server answered (the request
    /// moves from the prealloc to the transfer queue). `keepGoing`: polled
    /// between calls; false (client gone, shutdown) ends with Aborted.
    Result receive(const std::string &host, int port, std::uint64_t room,
                   const std::function<void()> &onHandshake,
                   const std::function<bool()> &keepGoing) const;

private:
    std::chrono::milliseconds m_timeout;
};

} // namespace opsdeck::sim
