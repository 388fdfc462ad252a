#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>

namespace opsdeck::sim {

/// What one engine's KV transfer backend remembers of the other side of its
/// PD pairs: the instance id of each peer, by address (a decode remembers
/// each prefill's bootstrap address, a prefill each decode's listen address).
///
/// Why (issue 20): restarting only one side of a nixl PD pair leaves both
/// engines answering /health 200 while every transfer hangs, because the side
/// that kept running still uses the agent metadata of the peer that is gone.
/// The model is kept small: every engine process draws a random instance id at
/// start (its "agent"); a peer is remembered on the first transfer that
/// completes with it. When another instance id shows up for a remembered
/// address,
///  - nixl keeps the stale one: check() says Stale and that transfer never
///    completes (the decode counts a transfer failure at its
///    --kv-transfer-timeout). Nothing new is remembered while stale, so once
///    the stale side restarts too (both sides new, or the fresh side never
///    having completed a transfer with the old one) transfers work again;
///  - mooncake re-registers the new instance and goes on.
/// Both log what happened, nixl once per (peer, new instance).
///
/// Thread-safe: HTTP handler threads of the decode and of the bootstrap server.
class PeerAgents
{
public:
    enum class Verdict
    {
        Usable,
        Stale ///< nixl with stale metadata: the transfer must hang
    };

    /// `backend`: "nixl" or "mooncake"; `peerRole`: "prefill" or "decode",
    /// the role of the peers remembered (for the log lines).
    PeerAgents(std::string backend, std::string peerRole);

    /// A handshake with the peer at `address`, now instance `instance` (empty:
    /// a peer that does not say, never stale).
    Verdict check(const std::string &address, const std::string &instance);
    /// A transfer with that peer completed. nixl remembers the first instance
    /// only; mooncake the latest.
    void remember(const std::string &address, const std::string &instance);

private:
    const bool m_nixl;
    const std::string m_peerRole;
    std::mutex m_mutex;
    std::map<std::string, std::string> m_known; ///< address -> instance id
    std::set<std::string> m_warned;             ///< "address instance" already logged
};

} // namespace opsdeck::sim
