#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

namespace opsdeck::sim {

/// Per-rank PD queue gauges and failure counters kept by a decode engine's
/// HTTP handlers (the prefill's come from KvRegistry). Thread-safe (atomics).
class PdCounters
{
public:
    struct Rank
    {
        std::atomic<int> decodePrealloc{0};
        std::atomic<int> decodeTransfer{0};
        std::atomic<std::uint64_t> bootstrapFailed{0};
        std::atomic<std::uint64_t> transferFailed{0};
        std::atomic<double> lastKvLatencyMs{0.0};
    };

    explicit PdCounters(int dpSize) : m_ranks(static_cast<size_t>(dpSize)) {}

    Rank &rank(int dpRank) { return m_ranks[static_cast<size_t>(dpRank)]; }
    const Rank &rank(int dpRank) const { return m_ranks[static_cast<size_t>(dpRank)]; }

private:
    std::vector<Rank> m_ranks; // sized once; atomics never move
};

} // namespace opsdeck::sim
