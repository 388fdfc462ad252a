#include "diagnosejson.h"

#include "checkjson.h"

#include <QJsonArray>
#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace opsdeck::probes {

namespace {

double rounded(double ms)
{
    return std::round(ms * 1000) / 1000;
}

QJsonObject roundJson(const probes::StallDiagnoser::Sample &sample)
{
    return QJsonObject{
        {u"round"_s, sample.round},
        {u"verdict"_s, probes::StallDiagnoser::verdictName(sample.verdict)},
        {u"reason"_s, sample.reason},
        {u"fresh_ms"_s, rounded(sample.fresh.totalMs)},
        {u"reused_ms"_s, rounded(sample.reused.totalMs)},
        {u"reused_connection"_s, sample.reused.connectionReused},
        {u"reused_local_port"_s, sample.reused.localPort},
        {u"fresh_connection_reused"_s, sample.fresh.connectionReused},
        {u"fresh_local_port"_s, sample.fresh.localPort},
        {u"reused_timed_out"_s, sample.reused.timedOut},
        {u"reused_stale"_s, sample.reused.staleKeepAlive},
        {u"stale_idle_s"_s, sample.reused.staleIdleS},
        {u"fresh_status"_s, sample.fresh.status},
        {u"reused_status"_s, sample.reused.status},
    };
}

// The factory's problem (never sent) first, else why nothing answered.
QString problemOf(const probes::ProbeRounds &rounds, const QStringList &unanswered, int index)
{
    const QString problem = rounds.problem(index);
    return problem.isEmpty() ? unanswered.value(index) : problem;
}

} // namespace

QString inconclusiveReason(const probes::ProbeRounds &rounds,
                           const std::optional<probes::Diagnosis> &diagnosis,
                           const QStringList &unanswered, bool cancelled)
{
    if (diagnosis)
        return {};
    if (cancelled)
        return u"cancelled after %1 of %2 rounds: no stall could be named or ruled out"_s
            .arg(rounds.roundsRun())
            .arg(rounds.settings().rounds);
    using Verdict = probes::StallDiagnoser::Verdict;
    const probes::StallDiagnoser &diagnoser = rounds.diagnoser();
    const QVector<probes::ProbePath> &paths = diagnoser.paths();
    const int needed = diagnoser.settings().consecutiveRounds;
    QStringList silent;    // never answered: a stall there cannot be ruled out
    QStringList unsettled; // answered, but the last rounds stalled or failed
    for (int i = 0; i < paths.size(); ++i) {
        const QString where = u"%1 (%2)"_s.arg(paths.at(i).name, paths.at(i).entryService);
        const QString problem = problemOf(rounds, unanswered, i);
        if (!problem.isEmpty()) {
            silent << u"%1: %2"_s.arg(where, problem);
            continue;
        }
        const int streak = diagnoser.currentStreak(i);
        if (streak > 0) {
            unsettled << u"%1 stalled in its last %2 of %3 rounds, fewer than the %4 in a row "
                         "that name a stall (run more --rounds)"_s.arg(where)
                             .arg(streak)
                             .arg(diagnoser.samples(i).size())
                             .arg(needed);
            continue;
        }
        const QVector<probes::StallDiagnoser::Sample> &samples = diagnoser.samples(i);
        const auto last = std::find_if(samples.crbegin(), samples.crend(), [](const auto &s) {
            return s.verdict != Verdict::Inconclusive;
        });
        if (last != samples.crend() && last->verdict == Verdict::Failed)
            unsettled << u"%1 stopped answering in round %2: %3"_s.arg(where)
                             .arg(last->round)
                             .arg(last->reason);
    }
    QStringList why;
    if (!silent.isEmpty())
        why << (silent.size() == paths.size()
                    ? u"no path answered: %1"_s.arg(silent.join(u"; "_s))
                    : u"%1 of %2 never answered, so a stall there cannot be ruled out: %3"_s
                          .arg(silent.size())
                          .arg(paths.size())
                          .arg(silent.join(u"; "_s)));
    why += unsettled;
    if (why.isEmpty())
        return {};
    return silent.size() == paths.size()
               ? why.join(u"; "_s)
               : u"no stall seen on the paths that answered, but "_s + why.join(u"; "_s);
}

QJsonObject diagnoseJson(const QString &cluster, const probes::ProbeRounds &rounds,
                         const std::optional<probes::Diagnosis> &diagnosis,
                         const QStringList &unanswered, bool cancelled)
{
    const probes::StallDiagnoser &diagnoser = rounds.diagnoser();
    QJsonArray paths;
    for (int i = 0; i < diagnoser.paths().size(); ++i) {
        const probes::ProbePath &path = diagnoser.paths().at(i);
        QJsonArray perRound;
        int stale = 0, stalling = 0;
        for (const probes::StallDiagnoser::Sample &sample : diagnoser.samples(i)) {
            perRound.append(roundJson(sample));
            stale += sample.reused.staleKeepAlive ? 1 : 0;
            stalling += sample.verdict == probes::StallDiagnoser::Verdict::Stalling ? 1 : 0;
        }
        paths.append(QJsonObject{{u"name"_s, path.name},
                                 {u"entry"_s, path.entryService},
                                 {u"role"_s, inventory::roleName(path.entryRole)},
                                 {u"depth"_s, path.depth},
                                 {u"url"_s, path.baseUrl.toString(QUrl::RemoveUserInfo)},
                                 {u"hops"_s, QJsonArray::fromStringList(path.hops)},
                                 {u"probe"_s, rounds.probeName(i)},
                                 {u"problem"_s, problemOf(rounds, unanswered, i)},
                                 {u"stale_count"_s, stale},
                                 {u"stalling_rounds"_s, stalling},
                                 {u"rounds"_s, perRound}});
    }
    const QJsonValue stall =
        diagnosis ? QJsonValue(probes::diagnosisToJson(*diagnosis)) : QJsonValue();
    return QJsonObject{{u"stall"_s, stall},
                       {u"paths"_s, paths},
                       {u"cluster"_s, cluster},
                       {u"rounds"_s, rounds.roundsRun()},
                       {u"idle_gap_s"_s, rounds.settings().idleGapS},
                       {u"timeout_ms"_s, rounds.settings().timeoutMs},
                       {u"model"_s, rounds.model()},
                       {u"cancelled"_s, cancelled},
                       {u"inconclusive"_s,
                        !inconclusiveReason(rounds, diagnosis, unanswered, cancelled).isEmpty()},
                       {u"inconclusive_reason"_s, [&]() -> QJsonValue {
                            const QString why =
                                inconclusiveReason(rounds, diagnosis, unanswered, cancelled);
                            return why.isEmpty() ? QJsonValue() : QJsonValue(why);
                        }()}};
}

QStringList diagnoseText(const probes::ProbeRounds &rounds,
                         const std::optional<probes::Diagnosis> &diagnosis,
                         const QStringList &unanswered, bool cancelled)
{
    QStringList lines;
    const probes::StallDiagnoser &diagnoser = rounds.diagnoser();
    for (int i = 0; i < diagnoser.paths().size(); ++i) {
        const probes::ProbePath &path = diagnoser.paths().at(i);
        if (!rounds.problem(i).isEmpty()) {
            lines << u"%1 (%2): not probed: %3"_s.arg(path.name, path.entryService,
                                                      rounds.problem(i));
            continue;
        }
        for (const probes::StallDiagnoser::Sample &sample : diagnoser.samples(i))
            lines << u"%1 (%2) round %3: %4 - %5"_s.arg(path.name, path.entryService)
                         .arg(sample.round)
                         .arg(probes::StallDiagnoser::verdictName(sample.verdict), sample.reason);
        if (!unanswered.value(i).isEmpty())
            lines << u"%1 (%2): %3"_s.arg(path.name, path.entryService, unanswered.value(i));
    }
    // Cancelled: the rounds left might have shown a stall; claim nothing.
    if (cancelled && !diagnosis) {
        lines << u"cancelled after %1 rounds; no keep-alive stall seen so far"_s.arg(
            rounds.roundsRun());
        return lines;
    }
    if (cancelled)
        lines << u"cancelled after %1 rounds"_s.arg(rounds.roundsRun());
    if (!diagnosis) {
        const QString inconclusive = inconclusiveReason(rounds, diagnosis, unanswered, cancelled);
        if (!inconclusive.isEmpty())
            lines << u"INCONCLUSIVE: "_s + inconclusive;
        else if (!diagnoser.paths().isEmpty() && problemOf(rounds, unanswered, 0).isEmpty())
            // Not inconclusive and path 0 answered: every path did.
            lines << u"no keep-alive stall found in %1 rounds"_s.arg(rounds.roundsRun());
        return lines;
    }
    lines << u"STALL: "_s + diagnosis->headline();
    if (!diagnosis->stallLengthText().isEmpty())
        lines << diagnosis->stallLengthText();
    lines << u"evidence: "_s + diagnosis->evidence;
    lines << u"do not conclude: "_s + diagnosis->caution;
    return lines;
}

} // namespace opsdeck::probes
