#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace opsdeck::sim {

/// The prefill side of the simulated KV handoff: one entry per bootstrap
/// room, from the moment the router's request (or the decode's handshake,
/// whichever comes first) names the room until the decode has collected the
/// KV. The simulated transfer takes 1 ms + 0.002 ms per prompt token after
/// the prefill step ends.
///
/// Threads: the prefill's scheduler marks rooms prefilled, HTTP handlers
/// register rooms, the bootstrap server's handlers long-poll. All methods are
/// thread-safe; stop() wakes every long poll.
class KvRegistry
{
public:
    enum class Status
    {
        Ready,
        Pending,
        Unknown,
        Failed
    };

    explicit KvRegistry(int dpSize) : m_dpSize(dpSize) {}

    /// The prefill received the PD request for `room` (handled by `dpRank`).
    void registerRoom(std::uint64_t room, int dpRank);
    /// The prefill step of `room` finished: its KV becomes ready after the transfer time.
    void markPrefilled(std::uint64_t room, int promptTokens);
    /// The prefill request was aborted: the decode must fail its transfer.
    void markFailed(std::uint64_t room);
    /// The decode that handshook for `room` is unknown to this prefill's nixl
    /// agent (PeerAgents said Stale): its KV goes to the stale agent, so the
    /// room is never ready for that decode (and never reported failed either).
    void markStale(std::uint64_t room);
    /// The decode contacted the bootstrap server about `room`. Returns true
    /// when the prefill already knows the room.
    bool handshake(std::uint64_t room);
    /// Long poll: waits up to `wait` for the room's KV. Ready marks it collected.
    Status waitFor(std::uint64_t room, std::chrono::milliseconds wait, int &promptTokens);
    /// Prefill gauges of one rank: PD requests whose decode has not handshaken
    /// yet (prealloc) and prefilled KV not yet collected (inflight).
    void counts(int dpRank, int &prealloc, int &inflight) const;
    void stop();

private:
    using Clock = std::chrono::steady_clock;
    struct Room
    {
        bool registered = false;
        bool handshaken = false;
        bool prefilled = false;
        bool failed = false;
        bool collected = false;
        bool stale = false;
        int dpRank = 0;
        int promptTokens = 0;
        Clock::time_point createdAt;
        Clock::time_point readyAt;
    };

    Room &entry(std::uint64_t room);
    void purge(Clock::time_point now);

    const int m_dpSize;
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::unordered_map<std::uint64_t, Room> m_rooms;
    bool m_stopping = false;
    Clock::time_point m_lastPurge{};
};

} // namespace opsdeck::sim
