// StallDiagnoser's evidence text: the numbers behind a diagnosis, in words.
#include "stalldiagnoser.h"

#include <QDateTime>
#include <algorithm>

using namespace Qt::StringLiterals;

namespace opsdeck::probes {

namespace {

// Sub-10 ms totals keep a decimal: "0.4 ms" and "3 ms" read differently on loopback.
QString ms(double value)
{
    return value < 10 ? u"%1 ms"_s.arg(value, 0, 'f', 1) : u"%1 ms"_s.arg(qRound64(value));
}

QString clock(qint64 msSinceEpoch)
{
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch).toString(u"HH:mm:ss"_s);
}

QString roundsText(const QVector<int> &rounds)
{
    if (rounds.size() > 1 && rounds.last() - rounds.first() == rounds.size() - 1)
        return u"rounds %1-%2"_s.arg(rounds.first()).arg(rounds.last());
    QStringList numbers;
    for (int round : rounds)
        numbers << QString::number(round);
    return (rounds.size() == 1 ? u"round "_s : u"rounds "_s) + numbers.join(u", "_s);
}

QString totals(const QVector<const StallDiagnoser::Sample *> &samples, bool reused)
{
    QStringList values;
    for (const StallDiagnoser::Sample *sample : samples) {
        const ProbeResult &result = reused ? sample->reused : sample->fresh;
        // A timeout is a lower bound, never the stall's length.
        values << (result.timedOut ? totalTimeText(result) : ms(result.totalMs));
    }
    return values.join(u", "_s);
}

} // namespace

QString StallDiagnoser::evidence(int pathIndex, const QVector<int> &run) const
{
    const ProbePath &path = m_paths.at(pathIndex);
    QVector<const Sample *> stalled;
    QVector<int> rounds;
    QStringList timeouts;
    for (int index : run) {
        const Sample &sample = m_samples.at(pathIndex).at(index);
        stalled << &sample;
        rounds << sample.round;
        if (sample.reused.timedOut)
            timeouts << clock(sample.reused.startedAtMs);
    }
    QString text = u"reused %1 (%2), %3 from %4: %5"_s.arg(
        path.name, path.entryService, roundsText(rounds),
        clock(stalled.first()->reused.startedAtMs), totals(stalled, true));
    if (!timeouts.isEmpty())
        text += u" (timeouts at %1)"_s.arg(timeouts.join(u", "_s));
    text += u"; fresh %1: %2"_s.arg(path.name, totals(stalled, false));

    // Every other path, in path order: what the hop's stall looks like from each
    // entry (a pooling proxy in front shows it on fresh connections too).
    for (int i = 0; i < m_paths.size(); ++i) {
        if (i == pathIndex)
            continue;
        const ProbePath &other = m_paths.at(i);
        QVector<const Sample *> same;
        QStringList abnormal;
        for (const Sample &sample : m_samples.at(i)) {
            if (!rounds.contains(sample.round))
                continue;
            same << &sample;
            if (sample.verdict == Verdict::Stalling || sample.verdict == Verdict::Failed)
                abnormal << u"round %1 %2: %3"_s.arg(sample.round)
                                .arg(verdictName(sample.verdict), sample.reason);
        }
        text += u"; %1 (%2): "_s.arg(other.name, other.entryService);
        if (same.isEmpty()) {
            text += u"no probe in those rounds"_s;
            continue;
        }
        text += u"reused %1, fresh %2"_s.arg(totals(same, true), totals(same, false));
        if (!abnormal.isEmpty())
            text += u" (not normal: %1)"_s.arg(abnormal.join(u"; "_s));
    }
    return text;
}

void StallDiagnoser::evidenceTable(int pathIndex, const QVector<int> &run,
                                   Diagnosis &diagnosis) const
{
    QVector<int> rounds;
    for (int index : run) {
        const Sample &sample = m_samples.at(pathIndex).at(index);
        rounds << sample.round;
        diagnosis.roundTimes << clock(sample.reused.startedAtMs);
    }
    const auto cell = [](const ProbeResult &result) {
        if (result.timedOut || result.ok())
            return result.timedOut ? totalTimeText(result) : ms(result.totalMs);
        return failureOf(result);
    };
    QVector<int> order{pathIndex};
    for (int i = 0; i < m_paths.size(); ++i)
        if (i != pathIndex)
            order << i;
    for (int i : order) {
        Diagnosis::EvidenceRow row{m_paths.at(i).name, m_paths.at(i).entryService, {}, {}};
        for (int round : rounds) {
            const auto sample = std::find_if(m_samples.at(i).cbegin(), m_samples.at(i).cend(),
                                             [round](const Sample &s) { return s.round == round; });
            row.fresh << (sample == m_samples.at(i).cend() ? u"—"_s : cell(sample->fresh));
            row.reused << (sample == m_samples.at(i).cend() ? u"—"_s : cell(sample->reused));
        }
        diagnosis.evidenceRows << row;
    }
}

} // namespace opsdeck::probes
