// opsdeck-cli: the scriptable twin of the console, built on the same models/.
// Subcommand names, flags, JSON keys and exit codes are a contract
// (DESIGN.md): add, never rename.
#include "clioutput.h"
#include "commandtable.h"

#include <QCoreApplication>
#include <csignal>
#include <cstdio>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

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

    const QStringList arguments = app.arguments();
    const QString command = arguments.value(1);
    if (command.isEmpty() || command == u"--help" || command == u"-h" || command == u"help") {
        const QByteArray usage = opsdeck::cli::usageText().toUtf8();
        std::fputs(usage.constData(), command.isEmpty() ? stderr : stdout);
        return command.isEmpty() ? opsdeck::cli::ExitBadInput : opsdeck::cli::ExitOk;
    }
    if (command == u"--version") {
        std::printf("opsdeck-cli %s\n", OPSDECK_VERSION);
        return opsdeck::cli::ExitOk;
    }
    return opsdeck::cli::dispatch(arguments);
}
