#pragma once

#include "diagnosis.h"
#include "probe.h"
#include "probepath.h"

#include <QMap>
#include <QString>
#include <QVector>
#include <optional>

namespace opsdeck::probes {

/// Places a connection-scoped stall on one hop from probe rounds (issue 4).
/// Pure logic: no I/O, no clock, no threads; feed it results, ask it.
///
/// Per round and per path it is given the round's Fresh and Reused probe
/// results and classifies the pair (classify()):
/// - Stalling: the fresh probe answered (2xx, no timeout) and the reused one
///   timed out, or took >= `ratio` (10) times the fresh total AND at least
///   `minExtraMs` (100 ms) more (so that loopback jitter of a fraction of a
///   millisecond is never a stall);
/// - Clear: both answered and the reused one was not that slow;
/// - Failed: the fresh probe did not answer, or the reused one failed
///   otherwise (an HTTP error, a refused connection): not a keep-alive stall;
/// - Inconclusive: no reused sample this round — the kept connection had
///   been closed by the server and replaced (staleKeepAlive), the reused
///   probe had no kept connection to use (a warm-up), or a probe was cancelled.
/// A path's stall is declared after `consecutiveRounds` (3) Stalling rounds
/// in a row; Inconclusive rounds neither extend nor break the run, Clear and
/// Failed break it.
///
/// The implicated hop is the entry of the deepest path (highest
/// ProbePath::depth; the first in path order on a tie) with a declared stall:
/// a stall seen via the proxy while the router entered directly answers is the
/// proxy's; one the router shows too is the router's. A proxy in front that
/// pools its upstream connections (nginx) shows the router's stall on fresh
/// connections too: its path is Failed, not Stalling, and the diagnosis names it
/// in `poolingProxies`. The evidence lists every other path's numbers in the
/// same rounds (and says when one did not answer normally).
///
/// Thread: one thread at a time.
class StallDiagnoser
{
public:
    struct Settings
    {
        int consecutiveRounds = 3; ///< Stalling rounds in a row that declare a stall, >= 1
        double ratio = 10;         ///< reused total >= ratio × fresh total is a stall
        double minExtraMs = 100;   ///< ... and exceeds it by at least this, ms
    };

    enum class Verdict
    {
        Clear,
        Stalling,
        Failed,
        Inconclusive
    };

    /// One path's probes of one round and what they showed.
    struct Sample
    {
        int round = 0; ///< 1-based
        ProbeResult fresh;
        ProbeResult reused;
        Verdict verdict = Verdict::Inconclusive;
        QString reason; ///< why, in words ("reused timed out after 2000 ms", "stale keep-alive
                        ///< replaced")
    };

    explicit StallDiagnoser(QVector<ProbePath> paths);
    StallDiagnoser(QVector<ProbePath> paths, Settings settings);

    const QVector<ProbePath> &paths() const { return m_paths; }
    const Settings &settings() const { return m_settings; }

    /// Adds path `pathIndex`'s probes of round `round` (1-based); returns the
    /// verdict. Results of an unknown path index are ignored (Inconclusive).
    Verdict add(int round, int pathIndex, const ProbeResult &fresh, const ProbeResult &reused);

    /// The decode services' load just before round `round`'s probes (running
    /// and waiting requests summed over decodes): the evidence for "the
    /// engines are idle" in the diagnosis' caution.
    void addDecodeLoad(int round, double running, double waiting);

    /// Every sample of a path, in the order added.
    const QVector<Sample> &samples(int pathIndex) const;
    /// Stalling rounds in a row at the end of the path's samples (Inconclusive skipped).
    int currentStreak(int pathIndex) const;
    /// True when the path has had `consecutiveRounds` Stalling rounds in a row.
    bool stallDeclared(int pathIndex) const;

    /// The hop implicated so far; nothing while no path has a declared stall.
    std::optional<Diagnosis> diagnosis() const;

    static Verdict classify(const ProbeResult &fresh, const ProbeResult &reused,
                            const Settings &settings, QString *reason = nullptr);
    /// "clear", "stalling", "failed", "inconclusive".
    static QString verdictName(Verdict verdict);

private:
    /// Indexes into samples(path) of the first run that declared the stall; empty when none.
    QVector<int> stallRun(int pathIndex) const;
    QString evidence(int pathIndex, const QVector<int> &run) const;
    /// The evidence as rows (implicated path first) and the rounds' clock times.
    void evidenceTable(int pathIndex, const QVector<int> &run, Diagnosis &diagnosis) const;
    /// Entries of shallower paths whose fresh probes stalled in the run's rounds.
    QStringList poolingProxies(int pathIndex, const QVector<int> &run) const;

    QVector<ProbePath> m_paths;
    Settings m_settings;
    QVector<QVector<Sample>> m_samples;
    QMap<int, std::pair<double, double>> m_decodeLoads; ///< round -> (running, waiting)
};

} // namespace opsdeck::probes
