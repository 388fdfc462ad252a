#include "commandrequest.h"

#include <algorithm>

namespace opsdeck::remote {

QString CommandRequest::displayText() const
{
    return argv.isEmpty() ? script : argv.join(QLatin1Char(' '));
}

QString CommandRequest::invalidReason() const
{
    if (argv.isEmpty() && script.trimmed().isEmpty())
        return QStringLiteral("empty command: neither argv nor script given");
    if (argv.isEmpty() && input)
        return QStringLiteral("a script cannot be given input: bash reads the script itself "
                              "from stdin; pass the data in a file, or run argv with input");
    return {};
}

QByteArray CommandRequest::scriptStandardInput() const
{
    // bash refuses an empty group ("{ # nothing\n}"); a script of comments
    // has nothing that could read stdin, so it goes as it is.
    const QStringList lines = script.split(u'\n');
    const bool hasCommand = std::any_of(lines.begin(), lines.end(), [](const QString &line) {
        const QString text = line.trimmed();
        return !text.isEmpty() && !text.startsWith(u'#');
    });
    if (!hasCommand)
        return script.toUtf8() + '\n';
    // "{ " on the script's first line keeps bash's line numbers the script's
    // own; the closing brace on a line of its own ends a last line that is a
    // comment or has no newline.
    return "{ " + script.toUtf8() + "\n}\n";
}

} // namespace opsdeck::remote
