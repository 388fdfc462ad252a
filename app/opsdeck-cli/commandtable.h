#pragma once

#include <QString>
#include <QStringList>
#include <vector>

namespace opsdeck::cli {

/// One line of opsdeck-cli's command table: a command, or one action of a
/// command that has several ("demo up", "metrics rate"). The table drives both
/// the dispatch and the usage text, so the two cannot drift apart; a test
/// checks every synopsis against the flags its command's --help lists.
struct CliCommand
{
    QString name;     ///< "status", "metrics"
    QString action;   ///< "rate", "up"; empty for a command without actions
    QString synopsis; ///< what follows the name and action: "--inventory FILE [--json] ..."
    QString purpose;  ///< one line: what it does and its exit codes when special
    /// The handler; gets "opsdeck-cli <name>" as its program name, then the
    /// arguments after the command's name (the action included).
    int (*run)(const QStringList &arguments) = nullptr;
};

/// Every command, in the order the usage lists them.
const std::vector<CliCommand> &commandTable();

/// `opsdeck-cli --help`: one entry per table line, then the exit codes.
QString usageText();

/// Runs the command `arguments` names (arguments[0] is the program, [1] the
/// command); an unknown command, or an unknown or missing action of a command
/// that has actions, prints why and returns ExitBadInput.
int dispatch(QStringList arguments);

} // namespace opsdeck::cli
