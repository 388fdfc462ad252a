#include "clioutput.h"

#include "visibletext.h"

#include <QCoreApplication>
#include <cstdio>

namespace opsdeck::cli {

void printError(const QString &message)
{
    // Errors quote what was given (a flag's value, a cluster's name): shown,
    // never cut at a NUL nor obeyed by the terminal. Lines stay lines (a
    // service's log quoted after a failed start).
    QStringList lines = message.split(u'\n');
    for (QString &line : lines)
        line = logging::visibleText(line);
    std::fprintf(stderr, "opsdeck-cli: %s\n", lines.join(u'\n').toLocal8Bit().constData());
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

QString withoutUserInfo(const QString &url)
{
    const qsizetype schemeEnd = url.indexOf(QLatin1String("://"));
    const qsizetype start = schemeEnd < 0 ? 0 : schemeEnd + 3;
    qsizetype end = start;
    while (end < url.size() && url.at(end) != u'/' && url.at(end) != u'?' && url.at(end) != u'#')
        ++end;
    const qsizetype at = url.lastIndexOf(u'@', end - 1);
    if (at < start)
        return url;
    return url.left(start) + url.mid(at + 1);
}

bool parseArguments(QCommandLineParser &parser, const QStringList &arguments)
{
    parser.addHelpOption();
    if (!parser.parse(arguments)) {
        printError(parser.errorText());
        return false;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        // Qt names the executable; the usage line names the subcommand too.
        QString help = parser.helpText();
        const QString exe = QCoreApplication::arguments().value(0);
        if (const qsizetype at = exe.isEmpty() ? -1 : help.indexOf(exe);
            at >= 0 && !arguments.isEmpty())
            help.replace(at, exe.size(), arguments.first());
        std::fprintf(stdout, "%s", help.toLocal8Bit().constData());
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
