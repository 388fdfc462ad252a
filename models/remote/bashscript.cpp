#include "bashscript.h"

#include <QRandomGenerator>

namespace opsdeck::remote {

QByteArray bashScriptStandardInput(const QString &script)
{
    const QByteArray text = script.toUtf8();
    QByteArray delimiter;
    do {
        delimiter =
            "OPSDECK_SCRIPT_" + QByteArray::number(QRandomGenerator::system()->generate64(), 16);
    } while (text.contains(delimiter));
    QByteArray in;
    in.reserve(text.size() + 512);
    in += "IFS= read -r -d '' __opsdeck_script <<'" + delimiter + "'\n";
    in += text;
    if (!text.endsWith('\n'))
        in += '\n';
    in += delimiter + '\n';
    in += "if ! \"$BASH\" -n /dev/stdin <<<\"$__opsdeck_script\"; then echo '";
    in += bashScriptNotRunLine;
    in += "' >&2; exit 2; fi\n";
    in += "eval \"$__opsdeck_script\"\n";
    return in;
}

void markScriptNotRun(CommandResult &result)
{
    const QByteArray line = QByteArray(bashScriptNotRunLine) + '\n';
    if (result.outcome != CommandResult::Outcome::Exited || result.exitCode != 2 ||
        !result.standardError.endsWith(line))
        return;
    result.standardError.chop(line.size());
    result.outcome = CommandResult::Outcome::FailedToStart;
    result.errorText = QStringLiteral("bash refused the script, nothing of it was run: %1")
                           // bash names the script after the file it checked
                           .arg(QString::fromUtf8(result.standardError)
                                    .trimmed()
                                    .replace(QStringLiteral("/dev/stdin: "), QString()));
}

} // namespace opsdeck::remote
