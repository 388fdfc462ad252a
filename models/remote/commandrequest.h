#pragma once

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <chrono>
#include <optional>

namespace opsdeck::remote {

/// One command for a host. Either `script` (run by `bash -s`, the form the
/// inventory's start/stop/status commands take) or `argv` (run directly).
///
/// A script reaches bash on its stdin (scriptStandardInput(), bashscript.h):
/// bash reads all of it and checks its syntax before any of it runs, so a
/// command in it that reads stdin gets EOF at once (case B16), a script with
/// a syntax error runs nothing (FailedToStart, bash's message quoted), and the
/// text is in no command line (no length limit, not in the host's `ps`).
/// Since stdin carries the script, `input` goes with argv only: a request
/// with both is refused (invalidReason()).
struct CommandRequest
{
    QString script;   ///< shell text for `bash -s`; used when argv is empty
    QStringList argv; ///< program and arguments, no shell involved
    /// Bytes for an argv command's stdin; without it stdin is closed (EOF at once).
    std::optional<QByteArray> input;
    QProcessEnvironment environment; ///< added to the inherited environment
    QString workingDirectory; ///< empty: the transport's default (home; / when home does not exist)
    /// The command is killed (its whole process group) when it runs longer:
    /// its result is then TimedOut, never success.
    std::chrono::milliseconds deadline = std::chrono::seconds(30);
    /// Bytes of stdout and of stderr kept each; the rest is counted, not kept.
    qint64 outputCap = 8 * 1024 * 1024;
    /// Run as root through `sudo -n` (never interactive: sudo fails at once
    /// instead of asking for a password). The environment is passed inside
    /// sudo (`sudo -n -- env K=V ...`), since sudo resets it. When sudo wants
    /// a password the result keeps its exit 1 and gets an errorText naming
    /// the host and the command (case B16; sudocommand.h).
    bool sudo = false;

    /// What the operator is shown before it runs: the script, or argv joined.
    QString displayText() const;
    /// Why the request cannot be run (empty: it can): neither argv nor a
    /// script, or a script given input. Both transports refuse such a
    /// request as FailedToStart with this text.
    QString invalidReason() const;
    /// What `bash -s` reads for `script` (bashScriptStandardInput()).
    QByteArray scriptStandardInput() const;
};

} // namespace opsdeck::remote
