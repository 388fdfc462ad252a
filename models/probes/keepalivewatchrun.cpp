// The keep-alive watch's worker: rounds of ProbeRounds per cluster, startup
// then steady, with reports to the owner's thread and to history.
#include "checkjson.h"
#include "historystore.h"
#include "keepalivewatch.h"
#include "probelabjob.h"
#include "proberounds.h"

#include <QDateTime>
#include <QJsonDocument>
#include <spdlog/spdlog.h>

using namespace Qt::StringLiterals;

namespace opsdeck::probes {

namespace {

/// Writes a "diagnosis" marker and a `watch` check row; false when not written.
bool record(const QString &databasePath, const QString &cluster, const QString &markerText,
            const QString &service, const std::optional<Diagnosis> &diagnosis)
{
    if (databasePath.isEmpty())
        return false;
    history::HistoryStore store(databasePath);
    if (!store.open()) {
        spdlog::error("watch: history not written: {}", store.lastError().toStdString());
        return false;
    }
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    history::Marker marker;
    marker.timeMs = now;
    marker.kind = u"diagnosis"_s;
    marker.text = markerText;
    marker.service = service;
    const QJsonObject json{
        {u"stall"_s, diagnosis ? QJsonValue(diagnosisToJson(*diagnosis)) : QJsonValue()}};
    const bool written = store.addMarker(marker) &&
                         store.addCheck({0, now, u"watch"_s, cluster,
                                         QJsonDocument(json).toJson(QJsonDocument::Compact)});
    if (!written)
        spdlog::error("watch: history not written: {}", store.lastError().toStdString());
    return written;
}

/// True when the path named `pathName` answered clear in its last `rounds`
/// rounds that said anything (inconclusive ones skipped).
bool clearAgain(const StallDiagnoser &diagnoser, const QString &pathName, int rounds)
{
    for (int i = 0; i < diagnoser.paths().size(); ++i) {
        if (diagnoser.paths().at(i).name != pathName)
            continue;
        int clear = 0;
        const auto &samples = diagnoser.samples(i);
        for (auto it = samples.crbegin(); it != samples.crend() && clear < rounds; ++it) {
            if (it->verdict == StallDiagnoser::Verdict::Inconclusive)
                continue;
            if (it->verdict != StallDiagnoser::Verdict::Clear)
                return false;
            ++clear;
        }
        return clear >= rounds;
    }
    return false;
}

/// True when every path's sample of `round` is clear or stalling: each answered.
bool everyPathAnswered(const StallDiagnoser &diagnoser, int round)
{
    for (int i = 0; i < diagnoser.paths().size(); ++i) {
        const auto &samples = diagnoser.samples(i);
        if (samples.isEmpty() || samples.last().round != round ||
            (samples.last().verdict != StallDiagnoser::Verdict::Clear &&
             samples.last().verdict != StallDiagnoser::Verdict::Stalling))
            return false;
    }
    return true;
}

} // namespace

void KeepAliveWatch::watchCluster(const std::shared_ptr<CancellableRun> &run,
                                  const QVector<ProbePath> &paths, const QString &cluster,
                                  const Settings &settings, const QString &databasePath)
{
    QVector<ProbeRequestFactory> factories = ProbeRequestFactory::forPaths(paths);
    const auto post = [this](auto call) {
        QMetaObject::invokeMethod(this, call, Qt::QueuedConnection);
    };
    std::optional<Diagnosis> standing; // reported and not cleared, across phases
    bool startup = true;
    while (!run->stopped()) {
        ProbeRounds::Settings roundSettings;
        if (startup) {
            // Rounds in which a path did not answer (a service still starting)
            // say nothing: up to four times as many rounds to get enough that do.
            roundSettings.rounds = 4 * settings.startupRounds;
            roundSettings.idleGapS = settings.startupIdleGapS;
            roundSettings.timeoutMs = settings.startupTimeoutMs;
        } else {
            roundSettings.rounds = ProbeRounds::kMaxRounds;
            roundSettings.idleGapS = settings.idleGapS;
            roundSettings.pauseS = std::max(0.0, settings.intervalS - settings.idleGapS);
        }
        ProbeRounds rounds(*m_engine, factories, roundSettings);
        bool reportedThisPhase = false;
        bool clearedThisPhase = false;
        int answeredRounds = 0;
        rounds.setRoundCallback([&](int round, const StallDiagnoser &diagnoser) {
            post(
                [this, cluster, round, startup] { Q_EMIT roundFinished(cluster, round, startup); });
            answeredRounds += everyPathAnswered(diagnoser, round) ? 1 : 0;
            if (startup && !diagnoser.diagnosis() && !standing &&
                answeredRounds >= settings.startupRounds) {
                rounds.stop(); // enough clear rounds: on to the low rate
                return;
            }
            if (standing && clearAgain(diagnoser, standing->pathName,
                                       rounds.settings().stall.consecutiveRounds)) {
                const QString why = u"keep-alive stall at %1 cleared: reused connections answer "
                                    "again"_s.arg(standing->hop);
                const bool written =
                    record(databasePath, cluster, why, standing->hop, std::nullopt);
                post([this, cluster, why, written] {
                    noteCleared(cluster, why);
                    if (written)
                        Q_EMIT markerAdded();
                });
                standing.reset();
                clearedThisPhase = true;
                rounds.stop(); // a new phase: the diagnoser starts over
                return;
            }
            std::optional<Diagnosis> found = diagnoser.diagnosis();
            if (!found || reportedThisPhase)
                return;
            reportedThisPhase = true;
            const bool known = standing && standing->hop == found->hop;
            if (!known) {
                const bool written =
                    record(databasePath, cluster, found->headline(), found->hop, found);
                post([this, cluster, d = *found, written] {
                    noteDiagnosis(cluster, d);
                    if (written)
                        Q_EMIT markerAdded();
                });
            }
            standing = found;
            if (settings.measureDeadlineS <= 0 || run->stopped())
                return;
            rounds.measureStall(*found, settings.measureDeadlineS);
            if (found->stallS < 0 && found->stallLowerBoundS < 0)
                return;
            standing = found;
            const bool written =
                record(databasePath, cluster, found->markerText(), found->hop, found);
            post([this, cluster, d = *found, written] {
                noteDiagnosis(cluster, d);
                if (written)
                    Q_EMIT markerAdded();
            });
        });
        if (!run->attach([&rounds] { rounds.stop(); }))
            break;
        rounds.run();
        run->detach();
        if (run->stopped())
            break;
        if (startup && !standing && !clearedThisPhase && answeredRounds >= settings.startupRounds) {
            const QString why =
                u"no keep-alive stall seen in %1 rounds in which every path answered"_s.arg(
                    answeredRounds);
            post([this, cluster, why] { noteCleared(cluster, why); });
        }
        startup = false;
    }
    for (ProbeRequestFactory &factory : factories)
        factory.wipe();
}

} // namespace opsdeck::probes
