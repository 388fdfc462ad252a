#include "diagnosecommand.h"

#include "apppaths.h"
#include "cancelonsignal.h"
#include "cliinventory.h"
#include "clioutput.h"
#include "diagnosejson.h"
#include "historystore.h"
#include "inventory.h"
#include "probeengine.h"
#include "probepath.h"
#include "proberounds.h"

#include <QDateTime>
#include <cmath>
#include <memory>

using namespace Qt::StringLiterals;

namespace opsdeck::cli {

namespace {

std::optional<probes::ProbeRounds::Settings> settingsOf(const QCommandLineParser &parser)
{
    probes::ProbeRounds::Settings settings;
    bool ok = true;
    if (parser.isSet(u"rounds"_s)) {
        settings.rounds = parser.value(u"rounds"_s).toInt(&ok);
        if (!ok || settings.rounds < 1 || settings.rounds > probes::ProbeRounds::kMaxRounds) {
            printError(
                u"bad --rounds '%1': a whole number from 1 to %2"_s.arg(parser.value(u"rounds"_s))
                    .arg(probes::ProbeRounds::kMaxRounds));
            return std::nullopt;
        }
    }
    if (parser.isSet(u"idle-gap"_s)) {
        settings.idleGapS = parser.value(u"idle-gap"_s).toDouble(&ok);
        if (!ok || !std::isfinite(settings.idleGapS) || settings.idleGapS < 0 ||
            settings.idleGapS > probes::ProbeRounds::kMaxIdleGapS) {
            printError(
                u"bad --idle-gap '%1': seconds from 0 to %2"_s.arg(parser.value(u"idle-gap"_s))
                    .arg(probes::ProbeRounds::kMaxIdleGapS));
            return std::nullopt;
        }
    }
    if (parser.isSet(u"timeout-ms"_s)) {
        settings.timeoutMs = parser.value(u"timeout-ms"_s).toInt(&ok);
        if (!ok || settings.timeoutMs < 1 || settings.timeoutMs > 600'000) {
            printError(u"bad --timeout-ms '%1': milliseconds from 1 to 600000"_s.arg(
                parser.value(u"timeout-ms"_s)));
            return std::nullopt;
        }
    }
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

std::optional<qint64> recordMarker(const QString &dataDir, const probes::Diagnosis &diagnosis)
{
    history::HistoryStore store(
        history::HistoryStore::pathIn(workflows::AppPaths::dataDir(dataDir)));
    history::Marker marker;
    marker.timeMs =
        diagnosis.lastStallMs > 0 ? diagnosis.lastStallMs : QDateTime::currentMSecsSinceEpoch();
    marker.kind = u"diagnosis"_s;
    marker.text = diagnosis.stallLengthText().isEmpty()
                      ? diagnosis.headline()
                      : u"%1 (%2)"_s.arg(diagnosis.headline(), diagnosis.stallLengthText());
    marker.service = diagnosis.hop;
    std::optional<qint64> id = store.open() ? store.addMarker(marker) : std::nullopt;
    if (!id)
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
    double measureStallS = 0;
    if (parser.isSet(u"measure-stall"_s)) {
        bool ok = false;
        measureStallS = parser.value(u"measure-stall"_s).toDouble(&ok);
        if (!ok || !(measureStallS >= 1) || measureStallS > 3600) {
            printError(u"bad --measure-stall '%1': seconds from 1 to 3600"_s.arg(
                parser.value(u"measure-stall"_s)));
            return ExitBadInput;
        }
    }
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
    if (anyProbed) {
        const CancelOnSignal onSignal([&rounds] { rounds.stop(); });
        diagnosis = rounds.run();
        if (diagnosis && measureStallS > 0 && !rounds.stopped()) {
            if (!json)
                std::fprintf(stderr, "opsdeck-cli: measuring the stall (up to %.0f s)\n",
                             measureStallS);
            rounds.measureStall(*diagnosis, measureStallS);
        }
        cancelled = rounds.stopped();
    }
    const QStringList unanswered = answers.unanswered();
    // A stall is named only from answers; without one there is no evidence.
    if (!answers.anyAnswered())
        diagnosis.reset();
    std::optional<qint64> markerId;
    if (diagnosis)
        markerId = recordMarker(parser.value(u"data-dir"_s), *diagnosis);

    if (json) {
        QJsonObject document = diagnoseJson(clusterName, rounds, diagnosis, unanswered, cancelled);
        document.insert(u"marker_id"_s, markerId ? QJsonValue(*markerId) : QJsonValue());
        printJson(QJsonDocument(document));
    } else {
        for (const QString &line : diagnoseText(rounds, diagnosis, unanswered, cancelled))
            printLine(line);
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
    return inconclusiveReason(rounds, diagnosis, unanswered).isEmpty() ? ExitOk : ExitUnknown;
}

} // namespace opsdeck::cli
