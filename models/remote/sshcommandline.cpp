#include "sshcommandline.h"

#include "shellquote.h"
namespace opsdeck::remote {

QByteArray remoteCommandLine(const CommandRequest &request, QString *error,
                             const QByteArray &pidTag)
{
    if (const QString invalid = request.invalidReason(); !invalid.isEmpty()) {
        *error = invalid;
        return {};
    }
    QByteArray line;
    if (!pidTag.isEmpty())
        line += "printf '%s %s\\n' '" + pidTag + "' \"$$\" >&2; ";
    if (!request.workingDirectory.isEmpty())
        line += "cd " + shell::singleQuoted(request.workingDirectory.toUtf8()) + " && ";
    line += "exec ";
    const QStringList keys = request.environment.keys();
    if (!keys.isEmpty()) {
        line += "env ";
        for (const QString &key : keys) {
            if (key.isEmpty() || key.contains(u'=')) {
                *error = QStringLiteral("bad environment name '%1'").arg(key);
                return {};
            }
            line +=
                shell::singleQuoted((key + u'=' + request.environment.value(key)).toUtf8()) + ' ';
        }
    }
    if (request.argv.isEmpty()) {
        line += "bash -s"; // the script follows on stdin (CommandRequest::scriptStandardInput)
    } else {
        // env would take a program named "A=B" for an assignment; such names do not occur.
        for (qsizetype i = 0; i < request.argv.size(); ++i)
            line += (i ? " " : "") + shell::singleQuoted(request.argv.at(i).toUtf8());
    }
    if (line.size() > maxCommandLineBytes) {
        *error = QStringLiteral("command of %1 bytes (quoted) is over the %2-byte limit of one "
                                "remote argument; pass long data as input or in a file")
                     .arg(line.size())
                     .arg(maxCommandLineBytes);
        return {};
    }
    return line;
}

} // namespace opsdeck::remote
