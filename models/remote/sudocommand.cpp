#include "sudocommand.h"

namespace opsdeck::remote::SudoCommand {

CommandRequest wrapped(const CommandRequest &request)
{
    CommandRequest out = request;
    out.sudo = false;
    if (!request.invalidReason().isEmpty())
        return out; // the transport refuses it with the reason, not as sudo's failure
    out.script.clear();
    out.environment = QProcessEnvironment();
    out.argv = {QStringLiteral("sudo"), QStringLiteral("-n"), QStringLiteral("--")};
    const QStringList keys = request.environment.keys();
    if (!keys.isEmpty()) {
        out.argv << QStringLiteral("env");
        for (const QString &key : keys)
            out.argv << key + QLatin1Char('=') + request.environment.value(key);
    }
    if (request.argv.isEmpty()) {
        out.argv << QStringLiteral("bash") << QStringLiteral("-s");
        out.input = request.scriptStandardInput();
    } else {
        out.argv << request.argv;
    }
    return out;
}

void explainFailure(CommandResult &result, const QString &host, const CommandRequest &original)
{
    if (result.outcome != CommandResult::Outcome::Exited || result.exitCode != 1)
        return;
    // sudo 1.8/1.9 wordings (B16 B); -n gives the first, -S at EOF the last.
    static const char *const prompts[] = {"a password is required",
                                          "a terminal is required to read the password",
                                          "no password was provided"};
    const bool wantsPassword =
        std::any_of(std::begin(prompts), std::end(prompts),
                    [&result](const char *text) { return result.standardError.contains(text); });
    if (!wantsPassword)
        return;
    result.errorText = QStringLiteral("sudo needs a password on host %1 for `%2` (configure "
                                      "NOPASSWD in sudoers for this command; OpsDeck never "
                                      "types a sudo password)")
                           .arg(host, original.displayText());
}

} // namespace opsdeck::remote::SudoCommand
