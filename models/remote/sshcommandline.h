#pragma once

#include "commandrequest.h"

#include <QByteArray>
#include <QString>

namespace opsdeck::remote {

/// The exec request's command string for `request`. sshd hands it to the
/// login shell as `$SHELL -c "<string>"`, so the user's shell must be a
/// POSIX shell (bash, dash, zsh in sh mode); fish or csh accounts are not supported.
///
/// Forms:  [cd 'DIR' && ] exec [env 'K=V'... ] 'argv0' 'argv1'...
///         [cd 'DIR' && ] exec [env 'K=V'... ] bash -s     (the script on stdin)
/// - `exec` so the command replaces the login shell: a signal that kills it
///   reaches sshd as exit-signal (not as the shell's 128+N), and the
///   deadline's signal request hits the command itself.
/// - Environment through `env`, not setenv requests: sshd accepts only the
///   names in its AcceptEnv (Debian: LANG, LC_*) and refuses the rest, so
///   a knob like SGLANG_FOO would silently not be set. Values are visible in
///   the remote `ps`: never pass secrets this way.
/// - A script runs through `bash -s`, as LocalTransport does: SshChannelRun
///   writes CommandRequest::scriptStandardInput() to stdin, then EOF. The
///   script is not part of this line, so its length is not limited by it.
/// - With `pidTag`, the line starts with `printf '%s %s\n' TAG "$$" >&2;`: sshd
///   runs the shell as a session leader, so `$$` is the process group of the
///   command that `exec` puts in its place. SshChannelRun strips that line from
///   stderr and uses it to kill the group on a deadline: sshd refuses "signal"
///   requests for root logins (no privilege separation after auth), so a
///   `kill` on a second channel is the way that works for every user.
/// Returns an empty array and sets `error` when the request cannot be sent
/// (CommandRequest::invalidReason(), or a line over maxCommandLineBytes).
QByteArray remoteCommandLine(const CommandRequest &request, QString *error,
                             const QByteArray &pidTag = {});

/// Largest whole command string (bytes, after quoting) remoteCommandLine()
/// sends: sshd execs it as one argument of `$SHELL -c`, and Linux refuses an
/// argument of 128 KiB or more (MAX_ARG_STRLEN, with its NUL) with E2BIG; past
/// sshd's 256 KiB packet limit sshd even drops the connection.
constexpr qsizetype maxCommandLineBytes = 128 * 1024 - 1;

} // namespace opsdeck::remote
