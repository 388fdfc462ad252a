#include "batchcheckcommand.h"

#include "batchcheck.h"
#include "cancelonsignal.h"
#include "checkhistory.h"
#include "checkjson.h"
#include "clioutput.h"
#include "clustercheck.h"
#include "probeengine.h"

using namespace Qt::StringLiterals;

namespace opsdeck::cli {

namespace {

void printText(const probes::BatchCheckResult &result)
{
    const auto ms = [](double value) {
        return value < 0 ? u"–"_s : u"%1 ms"_s.arg(value, 0, 'f', 1);
    };
    // result.path is a path's name ("router direct", "via proxy").
    printLine(u"batch check %1, path %2 (%3): %4"_s.arg(
        result.cluster, result.path, result.entryService,
        result.verdict == probes::BatchVerdict::None ? u"not measured"_s
                                                     : probes::batchVerdictName(result.verdict)));
    if (result.verdict == probes::BatchVerdict::None)
        return; // the error follows on stderr: no wall or single time was measured
    printLine(u"  "_s + result.reason);
    printLine(u"  n %1, failures %2, TTFT p50 %3, p99 %4, max %5"_s.arg(result.n)
                  .arg(result.failures)
                  .arg(ms(result.ttftPercentileMs(0.5)), ms(result.ttftPercentileMs(0.99)),
                       ms(result.ttftPercentileMs(1.0))));
}

} // namespace

int runBatchCheck(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Send N concurrent chat completions (max_tokens 128, streamed) through the cluster's "
        "router while sampling its decode's running requests every 250 ms: BATCHED, "
        "SERIALIZED or PARTIAL."_s);
    ClusterCheck::addOptions(parser);
    if (!parseArguments(parser, arguments))
        return ExitBadInput;
    const std::optional<ClusterCheck> check = ClusterCheck::load(parser, u"batch-check"_s);
    if (!check)
        return ExitBadInput;

    probes::BatchCheck::Settings settings;
    settings.n = check->n;
    settings.confirmation = check->confirmation;
    check->noteWhenDirect();
    probes::BatchCheckResult result;
    {
        probes::ProbeEngine engine;
        probes::BatchCheck batch(engine, check->inventory, check->cluster, settings,
                                 check->secretStore());
        const threads::CancelOnSignal onSignal([&batch] { batch.cancel(); });
        ClusterCheck::runOffMainThread([&] { result = batch.run(); });
    }
    if (result.confirmationRequired) {
        result.error = u"%1; %2"_s.arg(result.error, check->confirmationHint());
        if (check->json)
            printJson(QJsonDocument(probes::batchCheckToJson(result)));
        printError(result.error);
        return ExitBadInput;
    }
    check->saveToHistory([&](history::HistoryStore &store) {
        return history::recordBatchCheck(store, result).has_value();
    });
    if (check->json)
        printJson(QJsonDocument(probes::batchCheckToJson(result)));
    else
        printText(result);
    if (result.verdict == probes::BatchVerdict::None) {
        if (!check->json)
            printError(result.error);
        return result.pathFailed && !result.cancelled ? ExitFailed : ExitUnknown;
    }
    return result.verdict == probes::BatchVerdict::Batched && result.failures == 0 ? ExitOk
                                                                                   : ExitFailed;
}

} // namespace opsdeck::cli
