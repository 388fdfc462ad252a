#include "verifycommand.h"

#include "cancelonsignal.h"
#include "checkhistory.h"
#include "checkjson.h"
#include "clioutput.h"
#include "clustercheck.h"
#include "numberoption.h"
#include "probeengine.h"
#include "stagedverification.h"

using namespace Qt::StringLiterals;

namespace opsdeck::cli {

int runVerify(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Staged verification of a cluster: health of every service, then one chat completion "
        "through the router, then keep-alive through the clients' path (the proxy, else the "
        "router), then the batch check; stops at the first failed stage."_s);
    ClusterCheck::addOptions(parser);
    parser.addOption(
        {u"idle-gap"_s,
         u"Seconds the keep-alive stage's kept connection idles (default 10, 0..600)."_s, u"s"_s});
    parser.addOption(
        {u"skip-keepalive"_s, u"Leave the keep-alive stage out (said in the output)."_s});
    if (!parseArguments(parser, arguments))
        return ExitBadInput;
    const std::optional<ClusterCheck> check = ClusterCheck::load(parser, u"verify"_s);
    if (!check)
        return ExitBadInput;

    probes::StagedVerification::Settings settings;
    settings.keepAlive = !parser.isSet(u"skip-keepalive"_s);
    const std::optional<double> idleGapS =
        secondsOption(parser, u"idle-gap"_s, 0, 600, settings.keepAliveIdleGapS);
    if (!idleGapS)
        return ExitBadInput;
    settings.keepAliveIdleGapS = *idleGapS;
    if (!settings.keepAlive && !check->json)
        printLine(u"keep-alive stage skipped (--skip-keepalive): a stall on kept connections "
                  "would not be seen"_s);
    settings.batch.n = check->n;
    settings.batch.confirmation = check->confirmation;
    check->noteWhenDirect();
    probes::VerificationResult result;
    {
        probes::ProbeEngine engine;
        probes::StagedVerification verification(engine, check->inventory, check->cluster, settings,
                                                check->secretStore());
        if (!check->json) {
            // Each stage as it ends: a long batch check should not look like a hang.
            verification.setCallbacks(
                {{},
                 [](int index, const probes::VerificationStage &stage) {
                     printLine(u"%1. %2: %3 (%4 ms)\n   criterion: %5\n   %6"_s.arg(index + 1)
                                   .arg(stage.name, stage.passed      ? u"passed"_s
                                                    : stage.cancelled ? u"CANCELLED"_s
                                                                      : u"FAILED"_s)
                                   .arg(stage.ms, 0, 'f', 0)
                                   .arg(stage.criterion, stage.detail));
                 },
                 {}});
        }
        const threads::CancelOnSignal onSignal([&verification] { verification.cancel(); });
        ClusterCheck::runOffMainThread([&] { result = verification.run(); });
    }
    if (result.confirmationRequired) {
        result.error = u"%1; %2"_s.arg(result.error, check->confirmationHint());
        if (check->json)
            printJson(QJsonDocument(probes::verificationToJson(result)));
        printError(result.error);
        return ExitBadInput;
    }
    check->saveToHistory([&](history::HistoryStore &store) {
        return history::recordVerification(store, result).has_value();
    });
    if (check->json) {
        printJson(QJsonDocument(probes::verificationToJson(result)));
    } else if (!result.error.isEmpty()) {
        printError(result.error);
    } else {
        // Cancelled is not failed: the stages left did not run, nothing was judged.
        const QString outcome = result.cancelled ? u"CANCELLED (nothing judged after the "
                                                   "cancel)"_s
                                : result.passed ? u"passed"_s
                                                : u"FAILED"_s;
        printLine(u"verification %1: %2 in %3 s"_s.arg(result.cluster, outcome)
                      .arg(result.ms / 1000.0, 0, 'f', 1));
    }
    if (result.cancelled)
        return ExitUnknown;
    return result.passed ? ExitOk : ExitFailed;
}

} // namespace opsdeck::cli
