#pragma once

#include <cstdint>

namespace opsdeck::sim {

/// Live state of one data-parallel rank, as /v1/loads and /metrics show it.
/// The scheduler fills the batch part, the engine service the PD part.
struct RankStats
{
    int dpRank = 0;
    // scheduler
    int running = 0;                ///< admitted requests (prefilling + decoding)
    int waiting = 0;                ///< queued, not admitted yet
    std::int64_t usedTokens = 0;    ///< prompt + generated tokens of admitted requests
    std::int64_t pendingTokens = 0; ///< prompt tokens of waiting requests
    std::int64_t maxTotalTokens = 0;
    double tokenUsage = 0.0;    ///< usedTokens / maxTotalTokens
    double genThroughput = 0.0; ///< tokens/s over the last 2 s
    double utilization = 0.0;   ///< share of the last 2 s spent in steps
    int maxRunning = 0;
    // PD disaggregation
    int prefillPrealloc = 0; ///< prefill: PD requests whose decode has not handshaken yet
    int prefillInflight = 0; ///< prefill: KV prefilled, not yet collected by the decode
    int decodePrealloc = 0;  ///< decode: contacting the prefill's bootstrap server
    int decodeTransfer = 0;  ///< decode: waiting for the room's KV
    std::uint64_t bootstrapFailed = 0;
    std::uint64_t transferFailed = 0;
    double kvTransferLatencyMs = 0.0; ///< last KV wait seen by the decode
};

} // namespace opsdeck::sim
