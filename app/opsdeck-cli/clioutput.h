#pragma once

#include <QCommandLineParser>
#include <QJsonDocument>
#include <QString>

namespace opsdeck::cli {

/// Exit codes, the same for every subcommand (DESIGN.md, command-line contract).
enum ExitCode
{
    ExitOk = 0,       ///< success
    ExitFailed = 1,   ///< the thing checked is unhealthy, or the action failed
    ExitBadInput = 2, ///< bad input or usage
    ExitUnknown = 3,  ///< result unknown or timed out
    ExitHostKeyRefused = 4
};

/// One line on stderr: "opsdeck-cli: <message>".
void printError(const QString &message);
/// A line on stdout.
void printLine(const QString &line);
/// One JSON document on stdout, compact, followed by a newline.
void printJson(const QJsonDocument &document);

/// `url` as given by the user, without the user:password@ of its authority,
/// for quoting in a message: a password never reaches the terminal or a log,
/// even when the URL is invalid (text work, not QUrl, for that reason).
QString withoutUserInfo(const QString &url);

/// Parses `arguments` (the subcommand's own, with a program name first);
/// on a usage error prints it and returns false (the caller exits 2).
bool parseArguments(QCommandLineParser &parser, const QStringList &arguments);

/// The shared `--data-dir DIR` option.
QCommandLineOption dataDirOption();
QCommandLineOption jsonOption();

} // namespace opsdeck::cli
