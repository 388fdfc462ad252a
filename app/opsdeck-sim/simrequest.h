#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

namespace opsdeck::sim {

/// One generation request inside an engine, shared between the HTTP handler
/// that waits for its tokens (consumer) and the scheduler thread that
/// produces them.
///
/// Consumer side: waitForProgress(), generated(), done(), cancel().
/// Scheduler side: addToken(), finish(), abort() and the `sched` block,
/// which only the scheduler thread touches after submit().
class SimRequest
{
public:
    using Clock = std::chrono::steady_clock;

    enum class Kind
    {
        Unified,     ///< prefill then decode on this engine
        PrefillOnly, ///< PD prefill: stops after the first token, hands the KV over
        DecodeOnly,  ///< PD decode: KV (and the first token) came from the prefill
    };

    SimRequest(int promptTokens, int maxTokens, Kind kind, bool streaming);

    int promptTokens() const { return m_promptTokens; }
    int maxTokens() const { return m_maxTokens; }
    Kind kind() const { return m_kind; }
    bool streaming() const { return m_streaming; }
    Clock::time_point arrival() const { return m_arrival; }

    /// Waits until more than `seen` tokens exist or the request ended, at most
    /// `timeout`; returns the tokens generated so far.
    int waitForProgress(int seen, std::chrono::milliseconds timeout);
    int generated() const;
    bool finished() const;
    bool aborted() const;
    bool done() const { return finished() || aborted(); }
    /// The consumer went away: the scheduler drops the request at its next step boundary.
    void cancel() { m_cancelRequested = true; }
    bool cancelRequested() const { return m_cancelRequested.load(); }

    // --- scheduler thread
    void addToken(Clock::time_point at);
    void finish();
    void abort();
    /// Called on the scheduler thread when this request's prefill completes
    /// (PD prefill hands its KV to the bootstrap registry). Set before submit().
    std::function<void()> onPrefilled;

    struct SchedulerState
    {
        int prefillRemaining = 0;
        int reservedTokens = 0; ///< KV tokens held while admitted (prompt + max_tokens)
        Clock::time_point lastTokenAt{};
    } sched;

private:
    const int m_promptTokens;
    const int m_maxTokens;
    const Kind m_kind;
    const bool m_streaming;
    const Clock::time_point m_arrival;
    std::atomic<bool> m_cancelRequested{false};

    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    int m_generated = 0;
    bool m_finished = false;
    bool m_aborted = false;
};

} // namespace opsdeck::sim
