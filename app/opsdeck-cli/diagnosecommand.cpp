#include "diagnosecommand.h"

#include "apppaths.h"
#include "cancelonsignal.h"
#include "checkjson.h"
#include "cliinventory.h"
#include "clioutput.h"
#include "diagnosejson.h"
#include "historystore.h"
#include "inventory.h"
#include "numberoption.h"
#include "probeengine.h"
#include "probepath.h"
#include "proberounds.h"

#include <QDateTime>
#include <QJsonDocument>
#include <cmath>
#include <memory>

using namespace Qt::StringLiterals;

namespace opsdeck::cli {

namespace {

std::optional<probes::ProbeRounds::Settings> settingsOf(const QCommandLineParser &parser)
{
    probes::ProbeRounds::Settings settings;
    const std::optional<int> rounds = wholeNumberOption(
        parser, u"rounds"_s, 1, probes::ProbeRounds::kMaxRounds, settings.rounds, u"rounds"_s);
    const std::optional<double> idleGapS = secondsOption(
        parser, u"idle-gap"_s, 0, probes::ProbeRounds::kMaxIdleGapS, settings.idleGapS);
    const std::optional<int> timeoutMs = wholeNumberOption(parser, u"timeout-ms"_s, 1, 600'000,
                                                           settings.timeoutMs, u"milliseconds"_s);
    if (!rounds || !idleGapS || !timeoutMs)
        return std::nullopt;
    settings.rounds = *rounds;
    settings.idleGapS = *idleGapS;
    settings.timeoutMs = *timeoutMs;
    const QString probe = parser.value(u"probe"_s);
    if (probe == u"health")
        settings.probe = probes::ProbeRounds::Probe::Health;
    else if (!probe.isEmpty() && probe != u"auto") {
        printError(u"bad --probe '%1': auto or health"_s.arg(probe));
        return std::nullopt;
    }
    return settings;
}

/// Per path, whether any warm-up, fresh or reused probe was answered, and
/// the first error otherwise. The model lookup (round 0, fresh) is left out:
/// a router may list models and still never answer a chat.
class PathAnswers
{
public:
    explicit PathAnswers(int paths) : m_answered(paths, false), m_firstError(paths) {}

    void add(int round, int path, const probes::ProbeResult &result)
    {
        if (path < 0 || path >= m_answered.size() ||
            (round == 0 && result.mode == probes::ConnectionMode::Fresh))
            return;
        if (result.ok()) {
            m_answered[path] = true;
        } else if (m_firstError[path].isEmpty()) {
            m_firstError[path] = probes::failureOf(result);
        }
    }
    /// "no probe answered: <error>" per path that was sent probes and answered none.
    QStringList unanswered() const
    {
        QStringList lines;
        for (int i = 0; i < m_answered.size(); ++i)
            lines << (m_answered[i] || m_firstError[i].isEmpty()
                          ? QString()
                          : u"no probe answered: "_s + m_firstError[i]);
        return lines;
    }
    bool anyAnswered() const { return m_answered.contains(true); }
    /// The first failure of path `index`; empty when it answered or sent nothing.
    QString firstError(int index) const
    {
        return m_answered.value(index) ? QString() : m_firstError.value(index);
    }

private:
    QVector<bool> m_answered;
    QStringList m_firstError;
};

// The marker on the charts, and the whole diagnosis as a `checks` row of kind
// "diagnosis" (what a workflow's evidence guard reads).
std::optional<qint64> recordMarker(const QString &dataDir, const QString &cluster,
                                   const probes::Diagnosis &diagnosis)
{
    history::Marker marker;
    marker.timeMs =
        diagnosis.lastStallMs > 0 ? diagnosis.lastStallMs : QDateTime::currentMSecsSinceEpoch();
    marker.kind = u"diagnosis"_s;
    marker.text = diagnosis.markerText();
    marker.service = diagnosis.hop;
    history::HistoryStore store(
        history::HistoryStore::pathIn(settings::AppPaths::dataDir(dataDir)));
    const std::optional<qint64> id = store.open() ? store.addMarker(marker) : std::nullopt;
    const QJsonObject json{{u"stall"_s, probes::diagnosisToJson(diagnosis)}};
    if (!id || !store.addCheck({0, marker.timeMs, u"diagnosis"_s, cluster,
                                QJsonDocument(json).toJson(QJsonDocument::Compact)}))
        printError(u"the diagnosis was not recorded in history: %1"_s.arg(store.lastError()));
    return id;
}

} // namespace

int runDiagnose(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Probe every path into a cluster (via the proxy, the router directly, each engine "
        "directly) with fresh and reused keep-alive connections, round after round, and name "
        "the hop where reused connections stall. Exit 0 no stall, 1 a stall, 2 bad input, 3 no "
        "path could be probed or some path never answered (inconclusive)."));
    parser.addOption({u"inventory"_s, u"Inventory file (YAML)."_s, u"file"_s});
    parser.addOption({u"cluster"_s, u"Cluster to probe (inventory name)."_s, u"name"_s});
    parser.addOption(
        {u"rounds"_s, u"Rounds, 1 to 100 (default 3; a stall needs 3 in a row)."_s, u"n"_s});
    parser.addOption({u"idle-gap"_s,
                      u"Seconds the kept connection idles before each round (default 10)."_s,
                      u"s"_s});
    parser.addOption({u"timeout-ms"_s,
                      u"Timeout per probe, ms, 1..600000 (default 3 x the idle gap within "
                      "2-60 s)."_s,
                      u"ms"_s});
    parser.addOption({u"probe"_s,
                      u"auto: tiny chat via proxy and router, health on PD engines (default); "
                      "health: health GET everywhere."_s,
                      u"kind"_s});
    parser.addOption({u"measure-stall"_s,
                      u"Once a stall is found, send one more reused probe on its path with this "
                      "deadline, s (1..3600), to measure how long the stall lasts (stall.stall_s; "
                      "absent: not measured)."_s,
                      u"s"_s});
    parser.addOption(jsonOption());
    parser.addOption(dataDirOption());
    addTunnelOptions(parser);
    if (!parseArguments(parser, arguments))
        return ExitBadInput;
    // Absent: not measured (0).
    const std::optional<double> measureStall =
        parser.isSet(u"measure-stall"_s) ? secondsOption(parser, u"measure-stall"_s, 1, 3600, 0)
                                         : std::optional<double>(0);
    if (!measureStall)
        return ExitBadInput;
    const double measureStallS = *measureStall;
    if (!parser.isSet(u"inventory"_s) || !parser.isSet(u"cluster"_s)) {
        printError(u"diagnose needs --inventory FILE --cluster NAME"_s);
        return ExitBadInput;
    }
    const auto settings = settingsOf(parser);
    if (!settings)
        return ExitBadInput;
    const QString inventoryPath = parser.value(u"inventory"_s);
    const auto loaded = loadServedInventory(parser, inventoryPath);
    if (!loaded)
        return ExitBadInput;
    const QString clusterName = parser.value(u"cluster"_s);
    const inventory::Cluster *cluster = loaded->inventory.cluster(clusterName);
    if (!cluster) {
        QStringList known;
        for (const inventory::Cluster &c : loaded->inventory.clusters)
            known << c.name;
        printError(u"%1: no cluster '%2' (clusters: %3)"_s.arg(
            loaded->inventory.path, clusterName,
            known.isEmpty() ? u"none"_s : known.join(u", "_s)));
        return ExitBadInput;
    }

    const QVector<probes::ProbePath> paths = probes::probePaths(loaded->inventory, *cluster);
    QVector<probes::ProbeRequestFactory> factories = probes::ProbeRequestFactory::forPaths(paths);
    const bool anyProbed = std::any_of(factories.cbegin(), factories.cend(),
                                       [](const auto &f) { return f.problem().isEmpty(); });
    probes::ProbeEngine engine;
    probes::ProbeRounds rounds(engine, std::move(factories), *settings);
    const bool json = parser.isSet(u"json"_s);
    if (!json)
        rounds.setRoundCallback([](int round, const probes::StallDiagnoser &) {
            std::fprintf(stderr, "opsdeck-cli: round %d done\n", round);
        });
    PathAnswers answers(static_cast<int>(paths.size()));
    rounds.setResultCallback([&answers](int round, int path, const probes::ProbeResult &result) {
        answers.add(round, path, result);
    });
    std::optional<probes::Diagnosis> diagnosis;
    bool cancelled = false;
    QString notMeasured; // why a requested measurement gave no length
    if (anyProbed) {
        const threads::CancelOnSignal onSignal([&rounds] { rounds.stop(); });
        diagnosis = rounds.run();
        if (diagnosis && measureStallS > 0) {
            if (!json && !rounds.stopped())
                std::fprintf(stderr, "opsdeck-cli: measuring the stall (up to %.0f s)\n",
                             measureStallS);
            const std::optional<probes::ProbeResult> probe =
                rounds.stopped() ? std::nullopt : rounds.measureStall(*diagnosis, measureStallS);
            if (rounds.stopped())
                notMeasured = u"cancelled before the measuring probe answered"_s;
            else if (diagnosis->stallS < 0 && diagnosis->stallLowerBoundS < 0)
                notMeasured = probe ? probes::failureOf(*probe) : u"no probe was sent"_s;
        }
        cancelled = rounds.stopped();
    }
    const QStringList unanswered = answers.unanswered();
    // A stall is named only from answers; without one there is no evidence.
    if (!answers.anyAnswered())
        diagnosis.reset();
    std::optional<qint64> markerId;
    if (diagnosis)
        markerId = recordMarker(parser.value(u"data-dir"_s), clusterName, *diagnosis);

    if (json) {
        QJsonObject document =
            probes::diagnoseJson(clusterName, rounds, diagnosis, unanswered, cancelled);
        document.insert(u"marker_id"_s, markerId ? QJsonValue(*markerId) : QJsonValue());
        // Why --measure-stall gave no length (null when measured or not asked).
        document.insert(u"stall_not_measured"_s, diagnosis && !notMeasured.isEmpty()
                                                     ? QJsonValue(notMeasured)
                                                     : QJsonValue());
        printJson(QJsonDocument(document));
    } else {
        for (const QString &line : probes::diagnoseText(rounds, diagnosis, unanswered, cancelled))
            printLine(line);
        if (diagnosis && !notMeasured.isEmpty())
            printLine(u"the stall's length was not measured: "_s + notMeasured);
    }
    if (cancelled)
        return ExitUnknown;
    if (!answers.anyAnswered()) {
        QStringList why;
        for (int i = 0; i < paths.size(); ++i) {
            const QString problem =
                rounds.problem(i).isEmpty() ? answers.firstError(i) : rounds.problem(i);
            if (!problem.isEmpty())
                why << u"%1: %2"_s.arg(paths.at(i).name, problem);
        }
        printError(u"cluster %1: no path could be probed: %2"_s.arg(
            clusterName, why.isEmpty() ? u"no path"_s : why.join(u"; "_s)));
        return ExitUnknown;
    }
    if (diagnosis)
        return ExitFailed;
    return probes::inconclusiveReason(rounds, diagnosis, unanswered).isEmpty() ? ExitOk
                                                                               : ExitUnknown;
}

} // namespace opsdeck::cli
