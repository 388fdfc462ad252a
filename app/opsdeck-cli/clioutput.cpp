#include "clioutput.h"

#include <cstdio>

namespace opsdeck::cli {

void printError(const QString &message)
{
    std::fprintf(stderr, "opsdeck-cli: %s\n", message.toLocal8Bit().constData());
    std::fflush(stderr);
}

void printLine(const QString &line)
{
    std::fprintf(stdout, "%s\n", line.toLocal8Bit().constData());
    std::fflush(stdout);
}

void printJson(const QJsonDocument &document)
{
    std::fprintf(stdout, "%s\n", document.toJson(QJsonDocument::Compact).constData());
    std::fflush(stdout);
}

bool parseArguments(QCommandLineParser &parser, const QStringList &arguments)
{
    parser.addHelpOption();
    if (!parser.parse(arguments)) {
        printError(parser.errorText());
        return false;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        std::fprintf(stdout, "%s", parser.helpText().toLocal8Bit().constData());
        std::exit(ExitOk);
    }
    return true;
}

QCommandLineOption dataDirOption()
{
    return {QStringLiteral("data-dir"),
            QStringLiteral(
                "Keep state (history, audit, demo) in <dir> instead of $XDG_DATA_HOME/opsdeck."),
            QStringLiteral("dir")};
}

QCommandLineOption jsonOption()
{
    return {QStringLiteral("json"), QStringLiteral("Print one JSON document on stdout.")};
}

} // namespace opsdeck::cli
