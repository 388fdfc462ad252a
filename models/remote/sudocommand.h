#pragma once

#include "commandrequest.h"
#include "commandresult.h"

namespace opsdeck::remote {

/// How both transports run a request with `sudo` set (case B16).
namespace SudoCommand {

/// The request as an argv that needs no terminal:
/// `sudo -n -- [env K=V...] argv...` or `sudo -n -- [env K=V...] bash -s` with
/// the script on stdin (CommandRequest::scriptStandardInput()). A request
/// with an invalidReason() comes back unwrapped, for the transport to refuse.
/// `-n` makes sudo fail at once rather than prompt; the environment moves
/// inside sudo because sudo's env_reset would drop it. `sudo` is cleared.
CommandRequest wrapped(const CommandRequest &request);

/// When sudo refused for want of a password ("a password is required", "a
/// terminal is required to read the password", "no password was provided"),
/// sets errorText to a message naming `host` and the command; the outcome
/// (exit 1) is kept. Other results are left alone.
void explainFailure(CommandResult &result, const QString &host, const CommandRequest &original);

} // namespace SudoCommand

} // namespace opsdeck::remote
