// opsdeck-cli: the scriptable twin of the console, built on the same models/.
// Subcommand names, flags, JSON keys and exit codes are a contract
// (DESIGN.md): add, never rename.
#include "batchcheckcommand.h"
#include "clioutput.h"
#include "democommand.h"
#include "diagnosecommand.h"
#include "metricscommand.h"
#include "probecommand.h"
#include "ratecommand.h"
#include "recordcommand.h"
#include "secretcommand.h"
#include "sshcommand.h"
#include "statuscommand.h"
#include "verifycommand.h"

#include <QCoreApplication>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace {

const char *usage = R"(usage: opsdeck-cli <command> [options]

commands:
  demo up [--dir DIR] [--traffic N] [--fault F]   start the simulated PD cluster; prints the inventory path
  demo down [--dir DIR]                           stop it; returns when every process has exited
  status --inventory FILE [--json]                health of every service (exit 1 unless all healthy)
  metrics summarize FILE|URL [--json]             parse one /metrics page
  metrics rate FILE1 FILE2 (--interval S | --at T1 T2) [--json]
                                                  rates and latency quantiles between two scrapes
  record --inventory FILE [--data-dir DIR] [--pid-file FILE] [--interval-ms N]
                                                  record history without a window until SIGTERM
  diagnose --inventory FILE --cluster NAME [--rounds N] [--idle-gap S] [--json] [--data-dir DIR]
                                                  fresh vs reused keep-alive probes per hop; names
                                                  the stalling hop (exit 1 when one stalls)
  probe URL [--fresh|--reused] [--idle-gap S] [--count N] [--stream] [--json]
                                                  fresh or reused keep-alive latency with curl's
                                                  timings, one line per probe
  verify --inventory FILE --cluster NAME [-n N] [--confirm NAME] [--json] [--data-dir DIR]
                                                  health -> one end-to-end probe -> batch check
                                                  (exit 1 at the first failed stage)
  batch-check --inventory FILE --cluster NAME [-n N] [--confirm NAME] [--json] [--data-dir DIR]
                                                  N concurrent chats while sampling decode running
                                                  requests: BATCHED (exit 0), SERIALIZED or
                                                  PARTIAL (exit 1); production needs --confirm
  ssh HOST [--inventory FILE] [--ssh-config FILE] [--known-hosts FILE]
      [--accept-new-host-key SHA256:..] [--identity FILE] [--timeout S] -- COMMAND...
                                                  one command over SSH; exit code mirrors it
                                                  (signal: 128+N), 3 timeout/unknown, 4 host key
  secret set|delete|check KEY                     the keychain: set reads the value from stdin
                                                  (never echoed); check never prints it

Every command takes --help. Exit codes: 0 ok, 1 unhealthy or failed, 2 bad input,
3 unknown or timed out, 4 host key refused.
)";

} // namespace

int main(int argc, char **argv)
{
    // A reader that goes away (`| head -1`) must not kill a run mid-way:
    // writes then fail quietly and the command still ends its work and
    // writes its history.
    std::signal(SIGPIPE, SIG_IGN);
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("opsdeck-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(OPSDECK_VERSION));

    // Logs go to stderr so that stdout carries only the command's output.
    auto logger = spdlog::stderr_color_mt("opsdeck");
    logger->set_level(qEnvironmentVariableIsSet("OPSDECK_VERBOSE") ? spdlog::level::info
                                                                   : spdlog::level::warn);
    spdlog::set_default_logger(logger);

    QStringList arguments = app.arguments();
    const QString command = arguments.value(1);
    if (command.isEmpty() || command == u"--help" || command == u"-h" || command == u"help") {
        std::fputs(usage, command.isEmpty() ? stderr : stdout);
        return command.isEmpty() ? opsdeck::cli::ExitBadInput : opsdeck::cli::ExitOk;
    }
    if (command == u"--version") {
        std::printf("opsdeck-cli %s\n", OPSDECK_VERSION);
        return opsdeck::cli::ExitOk;
    }
    // The subcommand's parser sees "opsdeck-cli <command>" as its program name.
    arguments.removeAt(1);
    arguments[0] = QStringLiteral("opsdeck-cli ") + command;
    if (command == u"demo")
        return opsdeck::cli::runDemo(arguments);
    if (command == u"status")
        return opsdeck::cli::runStatus(arguments);
    if (command == u"secret")
        return opsdeck::cli::runSecret(arguments);
    if (command == u"record")
        return opsdeck::cli::runRecord(arguments);
    if (command == u"batch-check")
        return opsdeck::cli::runBatchCheck(arguments);
    if (command == u"verify")
        return opsdeck::cli::runVerify(arguments);
    if (command == u"probe")
        return opsdeck::cli::runProbe(arguments);
    if (command == u"ssh")
        return opsdeck::cli::runSsh(arguments);
    if (command == u"diagnose")
        return opsdeck::cli::runDiagnose(arguments);
    if (command == u"metrics") {
        // The first word that is not an option names the action.
        const auto action = std::find_if(arguments.cbegin() + 1, arguments.cend(),
                                         [](const QString &a) { return !a.startsWith(u'-'); });
        if (action != arguments.cend() && *action == u"rate")
            return opsdeck::cli::runMetricsRate(arguments);
        return opsdeck::cli::runMetrics(arguments);
    }
    opsdeck::cli::printError(
        QStringLiteral("unknown command '%1' (see opsdeck-cli --help)").arg(command));
    return opsdeck::cli::ExitBadInput;
}
