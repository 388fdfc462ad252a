#include "stalldiagnoser.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace opsdeck::probes {

QString Diagnosis::headline() const
{
    if (poolingProxies.isEmpty())
        return u"keep-alive stall at %1 (%2): reused connections stall, fresh ones answer"_s.arg(
            hop, roleName());
    return u"keep-alive stall at %1 (%2): reused connections stall; fresh ones answer there, but "
           "through %3, which pools upstream connections, new ones stall too"_s.arg(
               hop, roleName(), poolingProxies.join(u", "_s));
}

QString Diagnosis::stallLengthText() const
{
    if (stallS >= 0)
        return u"stall measured: %1 s on a kept connection after the idle gap"_s.arg(stallS, 0, 'f',
                                                                                     1);
    if (stallLowerBoundS >= 0)
        return u"stall lasts more than %1 s (the measuring probe timed out)"_s.arg(stallLowerBoundS,
                                                                                   0, 'f', 0);
    return {};
}

QString Diagnosis::markerText() const
{
    const QString where = u"keep-alive stall at %1 (%2)"_s.arg(hop, roleName());
    if (stallS >= 0)
        return u"%1 measured: %2 s on a kept connection"_s.arg(where).arg(stallS, 0, 'f', 1);
    if (stallLowerBoundS >= 0)
        return u"%1 lasts more than %2 s"_s.arg(where).arg(stallLowerBoundS, 0, 'f', 0);
    return headline();
}

StallDiagnoser::StallDiagnoser(QVector<ProbePath> paths)
    : StallDiagnoser(std::move(paths), Settings())
{
}

StallDiagnoser::StallDiagnoser(QVector<ProbePath> paths, Settings settings)
    : m_paths(std::move(paths)), m_settings(settings), m_samples(m_paths.size())
{
    m_settings.consecutiveRounds = std::max(1, m_settings.consecutiveRounds);
}

StallDiagnoser::Verdict StallDiagnoser::classify(const ProbeResult &fresh,
                                                 const ProbeResult &reused,
                                                 const Settings &settings, QString *reason)
{
    const auto because = [reason](Verdict verdict, const QString &why) {
        if (reason)
            *reason = why;
        return verdict;
    };
    if (fresh.cancelled || reused.cancelled)
        return because(Verdict::Inconclusive, u"cancelled"_s);
    // The server closed the idle connection and curl opened another: the
    // latency is a new connection's, not a kept one's.
    if (reused.staleKeepAlive)
        return because(Verdict::Inconclusive, u"stale keep-alive replaced (idle %1 s)"_s.arg(
                                                  reused.staleIdleS, 0, 'f', 1));
    if (!reused.connectionReused && !reused.timedOut)
        return because(Verdict::Inconclusive, u"no kept connection to reuse (warm-up)"_s);
    if (!fresh.ok() || fresh.timedOut)
        return because(Verdict::Failed, u"fresh probe did not answer: %1"_s.arg(failureOf(fresh)));
    if (reused.timedOut)
        return because(Verdict::Stalling,
                       u"reused %1, fresh answered in %2 ms"_s.arg(totalTimeText(reused))
                           .arg(fresh.totalMs, 0, 'f', 1));
    if (!reused.ok())
        return because(Verdict::Failed, u"reused probe failed: %1"_s.arg(failureOf(reused)));
    if (reused.totalMs >= settings.ratio * fresh.totalMs &&
        reused.totalMs - fresh.totalMs >= settings.minExtraMs)
        return because(Verdict::Stalling,
                       u"reused %1 ms vs fresh %2 ms"_s.arg(reused.totalMs, 0, 'f', 1)
                           .arg(fresh.totalMs, 0, 'f', 1));
    return because(Verdict::Clear, u"reused %1 ms, fresh %2 ms"_s.arg(reused.totalMs, 0, 'f', 1)
                                       .arg(fresh.totalMs, 0, 'f', 1));
}

QString StallDiagnoser::verdictName(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Clear:
        return u"clear"_s;
    case Verdict::Stalling:
        return u"stalling"_s;
    case Verdict::Failed:
        return u"failed"_s;
    case Verdict::Inconclusive:
        break;
    }
    return u"inconclusive"_s;
}

StallDiagnoser::Verdict StallDiagnoser::add(int round, int pathIndex, const ProbeResult &fresh,
                                            const ProbeResult &reused)
{
    if (pathIndex < 0 || pathIndex >= m_samples.size())
        return Verdict::Inconclusive;
    Sample sample;
    sample.round = round;
    sample.fresh = fresh;
    sample.reused = reused;
    // Bodies are not evidence; dropping them keeps a long run's memory flat.
    sample.fresh.body.clear();
    sample.reused.body.clear();
    sample.verdict = classify(fresh, reused, m_settings, &sample.reason);
    m_samples[pathIndex].append(sample);
    return sample.verdict;
}

const QVector<StallDiagnoser::Sample> &StallDiagnoser::samples(int pathIndex) const
{
    static const QVector<Sample> none;
    return pathIndex >= 0 && pathIndex < m_samples.size() ? m_samples.at(pathIndex) : none;
}

int StallDiagnoser::currentStreak(int pathIndex) const
{
    int streak = 0;
    const QVector<Sample> &all = samples(pathIndex);
    for (auto it = all.crbegin(); it != all.crend(); ++it) {
        if (it->verdict == Verdict::Inconclusive)
            continue;
        if (it->verdict != Verdict::Stalling)
            break;
        ++streak;
    }
    return streak;
}

QVector<int> StallDiagnoser::stallRun(int pathIndex) const
{
    QVector<int> run;
    const QVector<Sample> &all = samples(pathIndex);
    for (int i = 0; i < all.size(); ++i) {
        const Verdict verdict = all.at(i).verdict;
        if (verdict == Verdict::Inconclusive)
            continue;
        if (verdict != Verdict::Stalling) {
            run.clear();
            continue;
        }
        run.append(i);
        if (run.size() >= m_settings.consecutiveRounds)
            return run;
    }
    return {};
}

void StallDiagnoser::addDecodeLoad(int round, double running, double waiting)
{
    m_decodeLoads.insert(round, {running, waiting});
}

bool StallDiagnoser::stallDeclared(int pathIndex) const
{
    return !stallRun(pathIndex).isEmpty();
}

std::optional<Diagnosis> StallDiagnoser::diagnosis() const
{
    int chosen = -1;
    QVector<int> chosenRun;
    for (int i = 0; i < m_paths.size(); ++i) {
        QVector<int> run = stallRun(i);
        if (run.isEmpty())
            continue;
        if (chosen < 0 || m_paths.at(i).depth > m_paths.at(chosen).depth) {
            chosen = i;
            chosenRun = std::move(run);
        }
    }
    if (chosen < 0)
        return std::nullopt;
    const ProbePath &path = m_paths.at(chosen);
    const QVector<Sample> &all = m_samples.at(chosen);
    Diagnosis diagnosis;
    diagnosis.hop = path.entryService;
    diagnosis.role = path.entryRole;
    diagnosis.pathName = path.name;
    diagnosis.depth = path.depth;
    for (int index : chosenRun)
        diagnosis.rounds.append(all.at(index).round);
    diagnosis.firstStallMs = all.at(chosenRun.first()).reused.startedAtMs;
    diagnosis.lastStallMs = all.at(chosenRun.last()).reused.startedAtMs;
    diagnosis.evidence = evidence(chosen, chosenRun);
    evidenceTable(chosen, chosenRun, diagnosis);
    const bool engine = path.entryRole == inventory::Role::Prefill ||
                        path.entryRole == inventory::Role::Decode ||
                        path.entryRole == inventory::Role::Engine;
    for (int round : diagnosis.rounds) {
        const auto load = m_decodeLoads.constFind(round);
        if (load == m_decodeLoads.cend())
            continue;
        diagnosis.decodeRunningMax = std::max(diagnosis.decodeRunningMax, load->first);
        diagnosis.decodeWaitingMax = std::max(diagnosis.decodeWaitingMax, load->second);
    }
    // "The engines are idle" only when the decode's own numbers say so.
    QString engines = u"The engines answer fresh requests at once"_s;
    if (diagnosis.decodeRunningMax == 0 && diagnosis.decodeWaitingMax == 0)
        engines = u"The engines are idle (decode running 0, waiting 0 in the stalled rounds) "
                  "and answer fresh requests at once"_s;
    else if (diagnosis.decodeRunningMax > 0 || diagnosis.decodeWaitingMax > 0)
        engines += u" (decode running up to %1, waiting up to %2 in the stalled rounds)"_s
                       .arg(diagnosis.decodeRunningMax)
                       .arg(diagnosis.decodeWaitingMax);
    diagnosis.poolingProxies = poolingProxies(chosen, chosenRun);
    diagnosis.caution =
        engine
            ? u"%1 answers fresh requests at once: this is the connection layer (keep-alive) "
              "of %1, not its compute; do not change engine knobs for it."_s.arg(path.entryService)
            : u"%1: this is the connection layer at %2; do not change engine knobs for it."_s.arg(
                  engines, path.entryService);
    if (!diagnosis.poolingProxies.isEmpty())
        diagnosis.caution +=
            u" %1 pools its upstream connections: its clients see this stall even on new "
            "connections, so %1 is not the cause; restarting it only hides the stall until its "
            "pool fills again."_s.arg(diagnosis.poolingProxies.join(u", "_s));
    return diagnosis;
}

QStringList StallDiagnoser::poolingProxies(int pathIndex, const QVector<int> &run) const
{
    // The hop's own fresh probes are the baseline of "answers at once".
    double baselineMs = 0;
    QVector<int> rounds;
    for (int index : run) {
        const Sample &sample = m_samples.at(pathIndex).at(index);
        rounds << sample.round;
        baselineMs = std::max(baselineMs, sample.fresh.totalMs);
    }
    QStringList pooling;
    const int depth = m_paths.at(pathIndex).depth;
    for (int i = 0; i < m_paths.size(); ++i) {
        if (m_paths.at(i).depth >= depth)
            continue;
        for (const Sample &sample : m_samples.at(i)) {
            const ProbeResult &fresh = sample.fresh;
            const bool slow =
                fresh.timedOut || (fresh.ok() && fresh.totalMs >= m_settings.ratio * baselineMs &&
                                   fresh.totalMs - baselineMs >= m_settings.minExtraMs);
            if (rounds.contains(sample.round) && slow) {
                pooling << m_paths.at(i).entryService;
                break;
            }
        }
    }
    return pooling;
}

} // namespace opsdeck::probes
