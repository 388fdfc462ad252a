#pragma once

#include <QByteArray>
#include <QString>

namespace opsdeck::remote {

/// How a command ended. Only `Exited` with code 0 is success: a command
/// whose end is not known (`Unknown`) is never taken as having worked.
struct CommandResult
{
    enum class Outcome
    {
        Exited,        ///< exited on its own; exitCode holds the status
        Signalled,     ///< killed by a signal; signalName holds e.g. "SIGKILL"
        TimedOut,      ///< passed its deadline and was killed
        Cancelled,     ///< cancelled by the caller and killed
        FailedToStart, ///< could not be started (errorText says why)
        Unknown        ///< the channel closed without an exit status
    };

    Outcome outcome = Outcome::Unknown;
    int exitCode = -1;
    QString signalName;
    QByteArray standardOutput;        ///< at most CommandRequest::outputCap bytes
    QByteArray standardError;         ///< at most CommandRequest::outputCap bytes
    qint64 standardOutputDropped = 0; ///< bytes past the cap, counted not kept
    qint64 standardErrorDropped = 0;
    qint64 elapsedMs = 0; ///< wall time from start to end, ms
    QString errorText;    ///< transport-level error, empty when none
    /// The prompt the command seems to have waited on with stdin at EOF
    /// ("Overwrite? [y/N]"), set by both transports (inputprompt.h); empty when none.
    QString inputPrompt;

    bool succeeded() const { return outcome == Outcome::Exited && exitCode == 0; }
    /// One line for logs and messages: "exit 0", "killed by SIGTERM", "timed out after 30000 ms";
    /// with an inputPrompt, "exit 1; asked for input with stdin closed: “Overwrite? [y/N]”".
    QString describe() const;
    /// describe() and, when the transport said why (a connection lost before
    /// the exit status), its errorText: "result unknown (no exit status):
    /// connection to gpu-1 lost before an exit status arrived: ...".
    QString describeWithReason() const;

private:
    QString describeOutcome() const;
};

QString outcomeName(CommandResult::Outcome outcome);
/// "SIGTERM" for 15 and so on; "signal N" for numbers without a name.
QString signalName(int signalNumber);

} // namespace opsdeck::remote
