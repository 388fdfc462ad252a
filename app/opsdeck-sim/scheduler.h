#pragma once

#include "rankstats.h"
#include "simrequest.h"
#include "stepmodel.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace opsdeck::sim {

class EngineMetrics;

/// The scheduler loop of one data-parallel rank: ONE thread runs the
/// simulated GPU, step after step, like SGLang's event loop.
///
/// Each iteration: drop cancelled requests, admit waiting requests up to
/// max-running-requests (and while the KV pool, --max-total-tokens, can hold
/// their prompt + max_tokens, as SGLang reserves it), then run one step. A prefill step (C + D x
/// tokens ms) takes up to chunked-prefill-size prompt tokens from all admitted requests still
/// needing prefill, FIFO, and runs before the next decode step, so requests arriving together are
/// prefilled together and reach decode together. A decode step (StepModel::decodeStepMs(batch))
/// gives every decoding request one token. Steps are scheduled on absolute steady_clock deadlines
/// (deadline = previous deadline + step) so wake-up jitter does not accumulate and measured
/// throughput matches the formula; after an idle period or a stall of more than 200 ms the clock
/// restarts instead of bursting through missed steps.
///
/// Threads: submit() and snapshot() from any thread; the loop owns the
/// requests' SchedulerState.
class Scheduler
{
public:
    struct Limits
    {
        int maxRunning = 64;
        int chunkedPrefillSize = 8192; ///< tokens per prefill step
        int maxTotalTokens = 262144;   ///< KV pool, tokens
        double logIntervalS = 5.0;     ///< period of the "Decode batch." log line
        /// --decode-log-interval: the /metrics scheduler gauges are written every N decode steps.
        int decodeLogInterval = 40;
        /// --fault scheduler-stuck: nothing is ever admitted from the waiting queue.
        bool stuck = false;
    };

    /// `logTag`: prefix of this rank's log lines ("" or "[DP1] ").
    Scheduler(int dpRank, const StepModel &model, Limits limits, EngineMetrics &metrics,
              std::string logTag);
    ~Scheduler();

    void start();
    /// Aborts every request (their consumers wake up) and joins the thread.
    void stop();
    /// Queues a request; false (and the request aborted) when stopping.
    bool submit(const std::shared_ptr<SimRequest> &request);
    /// The batch part of RankStats (running, waiting, tokens, throughput), live
    /// (/v1/loads and /server_info read it).
    RankStats snapshot() const;
    /// The gauges as /metrics shows them: the snapshot taken when they were last
    /// written. As SGLang's scheduler (scheduler_metrics_mixin.py: log_prefill_stats,
    /// log_decode_stats; check_memory when idle), they are written after each
    /// prefill step, after every Limits::decodeLogInterval-th decode step (counted
    /// since start), and every 30 s while idle; in between they hold their value.
    RankStats publishedSnapshot() const;
    /// Fills the PD queue gauges of a snapshot being written (called on the
    /// scheduler thread with its lock held). Set before start().
    void setGaugeHook(std::function<void(RankStats &)> hook) { m_gaugeHook = std::move(hook); }

private:
    using Clock = SimRequest::Clock;
    /// gen_throughput and utilization average over this window.
    static constexpr std::chrono::seconds StatsWindow{2};
    using RequestPtr = std::shared_ptr<SimRequest>;
    struct Step
    {
        bool prefill = false;
        std::vector<std::pair<RequestPtr, int>> chunks; ///< prefill: request, tokens
        int tokens = 0;
        int batch = 0;
        double ms = 0.0;
    };

    void run();
    RankStats snapshotLocked() const;
    /// Writes the /metrics gauges (publishedSnapshot()).
    void publish(Clock::time_point at);
    void dropCancelled();
    void admit(Clock::time_point now);
    Step plan() const;
    void apply(const Step &step, Clock::time_point at);
    void applyPrefill(const Step &step, Clock::time_point at);
    void applyDecode(Clock::time_point at);
    void finish(const RequestPtr &request, Clock::time_point at);
    void recordStep(Clock::time_point at, double ms, int tokens);
    void maybeLog(const Step &step, Clock::time_point at);
    int runningCount() const { return static_cast<int>(m_prefilling.size() + m_decoding.size()); }
    void release(const RequestPtr &request);

    const int m_dpRank;
    const StepModel &m_model;
    const Limits m_limits;
    EngineMetrics &m_metrics;
    const std::string m_logTag;

    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::atomic<bool> m_stopping{false};
    std::thread m_thread;
    std::deque<RequestPtr> m_waiting;
    std::int64_t m_reservedTokens = 0; ///< KV pool tokens held by admitted requests
    std::vector<RequestPtr> m_prefilling;
    std::vector<RequestPtr> m_decoding;
    /// Recent steps (end time, step ms, tokens emitted) for gen_throughput and utilization.
    std::deque<std::tuple<Clock::time_point, double, int>> m_recent;
    Clock::time_point m_lastDecodeLog{};
    RankStats m_published; ///< /metrics gauges as last written
    Clock::time_point m_lastPublish{};
    std::uint64_t m_decodeSteps = 0; ///< SGLang's forward_ct_decode
    std::function<void(RankStats &)> m_gaugeHook;
    Clock::time_point m_lastPrefillLog{};
};

} // namespace opsdeck::sim
