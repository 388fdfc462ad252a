#include "commandresult.h"

#include <csignal>
#include <cstring>

namespace opsdeck::remote {

QString outcomeName(CommandResult::Outcome outcome)
{
    switch (outcome) {
    case CommandResult::Outcome::Exited:
        return QStringLiteral("exited");
    case CommandResult::Outcome::Signalled:
        return QStringLiteral("signalled");
    case CommandResult::Outcome::TimedOut:
        return QStringLiteral("timed out");
    case CommandResult::Outcome::Cancelled:
        return QStringLiteral("cancelled");
    case CommandResult::Outcome::FailedToStart:
        return QStringLiteral("failed to start");
    case CommandResult::Outcome::Unknown:
        return QStringLiteral("unknown");
    }
    return QStringLiteral("unknown");
}

QString signalName(int signalNumber)
{
    // sigabbrev_np is glibc 2.32+, which Debian 12 has.
    if (const char *abbrev = ::sigabbrev_np(signalNumber))
        return QStringLiteral("SIG") + QString::fromLatin1(abbrev);
    return QStringLiteral("signal %1").arg(signalNumber);
}

QString CommandResult::describe() const
{
    const QString how = describeOutcome();
    return inputPrompt.isEmpty() ? how
                                 : QStringLiteral("%1; asked for input with stdin closed: “%2”")
                                       .arg(how, inputPrompt);
}

QString CommandResult::describeWithReason() const
{
    const QString how = describe();
    return errorText.isEmpty() || how.contains(errorText)
               ? how
               : QStringLiteral("%1: %2").arg(how, errorText);
}

QString CommandResult::describeOutcome() const
{
    switch (outcome) {
    case Outcome::Exited:
        return QStringLiteral("exit %1").arg(exitCode);
    case Outcome::Signalled:
        return QStringLiteral("killed by %1").arg(signalName);
    case Outcome::TimedOut:
        return QStringLiteral("timed out after %1 ms").arg(elapsedMs);
    case Outcome::Cancelled:
        return QStringLiteral("cancelled after %1 ms").arg(elapsedMs);
    case Outcome::FailedToStart:
        return QStringLiteral("failed to start: %1").arg(errorText);
    case Outcome::Unknown:
        return QStringLiteral("result unknown (no exit status)");
    }
    return QStringLiteral("result unknown");
}

} // namespace opsdeck::remote
