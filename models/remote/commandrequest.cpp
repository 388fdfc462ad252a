#include "commandrequest.h"

#include "bashscript.h"

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
    return bashScriptStandardInput(script);
}

} // namespace opsdeck::remote
