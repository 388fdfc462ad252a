// The reporting side of Scheduler: snapshot() for /v1/loads and /metrics,
// and the periodic "Prefill batch." / "Decode batch." log lines (SGLang's format).
#include "logger.h"
#include "scheduler.h"

#include <algorithm>
#include <cstdio>

namespace opsdeck::sim {

RankStats Scheduler::snapshot() const
{
    std::lock_guard lock(m_mutex);
    return snapshotLocked();
}

RankStats Scheduler::publishedSnapshot() const
{
    std::lock_guard lock(m_mutex);
    return m_published;
}

void Scheduler::publish(Clock::time_point at)
{
    m_published = snapshotLocked();
    if (m_gaugeHook)
        m_gaugeHook(m_published);
    m_lastPublish = at;
}

RankStats Scheduler::snapshotLocked() const
{
    RankStats stats;
    stats.dpRank = m_dpRank;
    stats.running = runningCount();
    stats.waiting = static_cast<int>(m_waiting.size());
    for (const auto *queue : {&m_prefilling, &m_decoding}) {
        for (const auto &request : *queue)
            stats.usedTokens += request->promptTokens() + request->generated();
    }
    for (const auto &request : m_waiting)
        stats.pendingTokens += request->promptTokens();
    stats.maxTotalTokens = m_limits.maxTotalTokens;
    stats.tokenUsage = static_cast<double>(stats.usedTokens) / m_limits.maxTotalTokens;
    stats.maxRunning = m_limits.maxRunning;
    const auto now = Clock::now();
    double busyMs = 0;
    long tokens = 0;
    for (const auto &[at, ms, count] : m_recent) {
        if (now - at <= StatsWindow) {
            busyMs += ms;
            tokens += count;
        }
    }
    const double windowS = std::chrono::duration<double>(StatsWindow).count();
    stats.genThroughput = tokens / windowS;
    stats.utilization = std::min(1.0, busyMs / 1000.0 / windowS);
    return stats;
}

void Scheduler::maybeLog(const Step &step, Clock::time_point at)
{
    auto &last = step.prefill ? m_lastPrefillLog : m_lastDecodeLog;
    if (at - last < std::chrono::duration<double>(m_limits.logIntervalS))
        return;
    last = at;
    long used = 0;
    for (const auto *queue : {&m_prefilling, &m_decoding}) {
        for (const auto &request : *queue)
            used += request->promptTokens() + request->generated();
    }
    char text[256];
    if (step.prefill) {
        std::snprintf(text, sizeof text,
                      "%sPrefill batch. #new-seq: %d, #new-token: %d, #running-req: %d, "
                      "#queue-req: %zu",
                      m_logTag.c_str(), step.batch, step.tokens, runningCount(), m_waiting.size());
    } else {
        std::snprintf(text, sizeof text,
                      "%sDecode batch. #running-req: %d, #token: %ld, token usage: %.2f, "
                      "gen throughput (token/s): %.2f, #queue-req: %zu",
                      m_logTag.c_str(), runningCount(), used,
                      static_cast<double>(used) / m_limits.maxTotalTokens,
                      step.batch * 1000.0 / step.ms, m_waiting.size());
    }
    Logger::info(text);
}

} // namespace opsdeck::sim
