#pragma once

#include "probegroup.h"
#include "proberequestfactory.h"
#include "stalldiagnoser.h"

#include <QString>
#include <QVector>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace opsdeck::probes {

class ProbeEngine;

/// Runs rounds of fresh and reused probes over a cluster's probe paths and
/// feeds a StallDiagnoser (issue 4, "stall diagnosis").
///
/// Sequence: (1) the model is looked up once (fresh GET /v1/models, deepest
/// path first, until one answers); (2) every path's keep-alive connection is
/// warmed up (one Reused probe); then each round (3) waits the idle gap, like
/// an agentic client thinking between calls, and (4) sends on every path at
/// once one Reused probe (on the kept connection) beside one Fresh probe.
/// A path whose reused probe did not answer (a timeout closes the connection)
/// is warmed up again right after the round, so the next round measures a
/// kept connection again rather than a new one.
///
/// What is sent (Probe::Auto): the tiny chat completion (max_tokens 8, the
/// incident's stall was on chat calls, and a router or proxy may treat /health
/// apart from chat) on paths entering at a proxy, a router or a non-PD engine;
/// a GET of the health URL on paths entering a PD prefill or decode directly,
/// which do not serve a chat without the router's bootstrap fields. Without a
/// model (/v1/models answered nowhere) every path sends the health GET.
/// Probe::Health sends the health GET everywhere (no engine work at all).
/// Load: per round at most 2 probes per path (+1 warm-up), one at a time per
/// path and kind: a handful of 8-token requests every idle gap.
///
/// Probe timeout (Settings::timeoutMs 0): 3 × the idle gap, at least 2 s and
/// at most 60 s. A tiny chat on a healthy idle engine answers in well under a
/// second; a keep-alive stall of the incident's kind (100-300 s) is cut as a
/// timeout, which counts as a stall; a shorter stall is caught by the 10x rule.
///
/// Thread: run() blocks the calling thread (a worker, never the GUI thread;
/// the probes themselves run on the ProbeEngine's thread). The callbacks run
/// on the thread that called run(). stop() from any thread.
class ProbeRounds
{
public:
    static constexpr int kMaxRounds = 100;
    static constexpr double kMaxIdleGapS = 600;

    enum class Probe
    {
        Auto,   ///< chat where the entry serves one alone, health GET on PD engines
        Health, ///< health GET on every path
    };

    struct Settings
    {
        int rounds = 3;       ///< 1..kMaxRounds
        double idleGapS = 10; ///< before each round's reused probe, s, 0..kMaxIdleGapS
        int timeoutMs = 0;    ///< per probe, ms; 0: defaultTimeoutMs(idleGapS)
        /// Before each round after the first, s (0..3600): the keep-alive watch's
        /// low rate. With a pause, every round first warms up its kept
        /// connections again, so they idle exactly idleGapS before the reused
        /// probe (a minute-long idle would be closed by many servers).
        double pauseS = 0;
        Probe probe = Probe::Auto;
        StallDiagnoser::Settings stall;
    };

    /// Round 0: the model lookup and warm-ups; 1..rounds: the rounds.
    using ResultCallback = std::function<void(int round, int pathIndex, const ProbeResult &)>;
    /// After round `round` was fed to the diagnoser.
    using RoundCallback = std::function<void(int round, const StallDiagnoser &diagnoser)>;

    /// `factories`: one per path, resolved (API key read) by the caller, in
    /// probePaths() order. Paths whose factory has a problem() are not probed
    /// (their ResultCallback gets one result with that error, round 0).
    /// `engine` must outlive this object.
    ProbeRounds(ProbeEngine &engine, QVector<ProbeRequestFactory> factories, Settings settings);
    ~ProbeRounds();
    ProbeRounds(const ProbeRounds &) = delete;
    ProbeRounds &operator=(const ProbeRounds &) = delete;

    void setResultCallback(ResultCallback callback) { m_onResult = std::move(callback); }
    void setRoundCallback(RoundCallback callback) { m_onRound = std::move(callback); }

    /// Runs the rounds; returns the diagnosis when a stall was declared (the
    /// rounds still run to the end, so every path's numbers are complete).
    /// Returns early, with what it has, after stop().
    std::optional<Diagnosis> run();
    /// After run() found a stall: measures how long it really lasts on
    /// `diagnosis`'s path. Warms up that path's kept connection, waits the idle
    /// gap, then sends one reused probe with a deadline of `deadlineS` seconds
    /// (1..3600; the incident's stalls lasted 100-300 s). Sets the diagnosis'
    /// stallS (the probe's total) or, when it timed out too, stallLowerBoundS.
    /// Leaves both at -1 when the probe failed otherwise or stop() came.
    /// Returns the probe's result (nullopt when nothing was sent). Blocks like run().
    std::optional<ProbeResult> measureStall(Diagnosis &diagnosis, double deadlineS);
    /// Ends run() soon: the idle wait wakes at once, probes in flight are cancelled.
    void stop();
    bool stopped() const { return m_stop.load(); }

    const StallDiagnoser &diagnoser() const { return m_diagnoser; }
    const Settings &settings() const { return m_settings; }
    int roundsRun() const { return m_roundsRun; }
    /// The model the chat probes name; empty when they fell back to health.
    const QString &model() const { return m_model; }
    /// What path `index` sends: "chat" or "health".
    QString probeName(int index) const;
    /// Why path `index` was not probed; empty when it was.
    QString problem(int index) const;

    /// 3 × idleGapS, clamped to 2..60 s, in ms (see the class comment).
    static int defaultTimeoutMs(double idleGapS);

private:
    struct Sync;
    QVector<ProbeResult> runBatch(const QVector<ProbeRequest> &requests);
    ProbeRequest request(int index, ConnectionMode mode) const;
    void lookUpModel();
    void warmUp(const QVector<int> &paths);
    bool waitIdleGap();
    /// Waits `seconds` unless stop() comes first; false when stopped.
    bool wait(double seconds);
    void sampleDecodeLoad(int round, const QVector<int> &probed);

    ProbeGroup m_group;
    QVector<ProbeRequestFactory> m_factories;
    Settings m_settings;
    StallDiagnoser m_diagnoser;
    QVector<bool> m_chat; ///< per path: sends the tiny chat (else the health GET)
    QString m_model;
    ResultCallback m_onResult;
    RoundCallback m_onRound;
    std::atomic<bool> m_stop{false};
    std::shared_ptr<Sync> m_sync;
    int m_roundsRun = 0;
};

} // namespace opsdeck::probes
