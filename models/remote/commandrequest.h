#pragma once

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <chrono>
#include <optional>

namespace opsdeck::remote {

/// One command for a host. Either `script` (run by `bash -c`, the form the
/// inventory's start/stop/status commands take) or `argv` (run directly).
struct CommandRequest
{
    QString script;                  ///< shell text for `bash -c`; used when argv is empty
    QStringList argv;                ///< program and arguments, no shell involved
    std::optional<QByteArray> input; ///< bytes for stdin; without it stdin is closed (EOF at once)
    QProcessEnvironment environment; ///< added to the inherited environment
    QString workingDirectory;        ///< empty: the transport's default (home)
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
};

} // namespace opsdeck::remote
