#pragma once

#include "commandrequest.h"

#include <QByteArray>
#include <QString>

namespace opsdeck::remote {

/// `'text'` for a POSIX shell: single quotes, each `'` written as `'\''`.
QByteArray shellQuote(const QString &text);

/// The exec request's command string for `request`. sshd hands it to the
/// login shell as `$SHELL -c "<string>"`, so the user's shell must be a
/// POSIX shell (bash, dash, zsh in sh mode); fish or csh accounts are not supported.
///
/// Forms:  [cd 'DIR' && ] exec [env 'K=V'... ] 'argv0' 'argv1'...
///         [cd 'DIR' && ] exec [env 'K=V'... ] bash -c '<script>'
/// - `exec` so the command replaces the login shell: a signal that kills it
///   reaches sshd as exit-signal (not as the shell's 128+N), and the
///   deadline's signal request hits the command itself.
/// - Environment through `env`, not setenv requests: sshd accepts only the
///   names in its AcceptEnv (Debian: LANG, LC_*) and refuses the rest, so
///   a knob like SGLANG_FOO would silently not be set. Values are visible in
///   the remote `ps`: never pass secrets this way.
/// - A script runs through `bash -c '<script>'`, as LocalTransport does, and
///   not through `bash -s` with the script on stdin: with `bash -s` a command
///   in the script that reads stdin (`cat`, `read`) would swallow the rest of
///   the script instead of getting EOF at once (case B16), and stdin could not
///   carry the request's input. Cost: the script is one argument of the remote
///   execve, so it is limited (maxScriptBytes, under Linux's 128 KiB per argument).
/// - With `pidTag`, the line starts with `printf '%s %s\n' TAG "$$" >&2;`: sshd
///   runs the shell as a session leader, so `$$` is the process group of the
///   command that `exec` puts in its place. SshChannelRun strips that line from
///   stderr and uses it to kill the group on a deadline: sshd refuses "signal"
///   requests for root logins (no privilege separation after auth), so a
///   `kill` on a second channel is the way that works for every user.
/// Returns an empty array and sets `error` when the request cannot be sent.
QByteArray remoteCommandLine(const CommandRequest &request, QString *error,
                             const QByteArray &pidTag = {});

/// Largest script (UTF-8 bytes, before quoting) remoteCommandLine() sends.
constexpr qsizetype maxScriptBytes = 96 * 1024;

/// Largest whole command string (bytes, after quoting) remoteCommandLine()
/// sends: sshd execs it as one argument of `$SHELL -c`, and Linux refuses an
/// argument of 128 KiB or more (MAX_ARG_STRLEN, with its NUL) with E2BIG; past
/// sshd's 256 KiB packet limit sshd even drops the connection.
constexpr qsizetype maxCommandLineBytes = 128 * 1024 - 1;

} // namespace opsdeck::remote
