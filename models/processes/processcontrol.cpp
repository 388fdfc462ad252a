#include "processcontrol.h"

#include "shellquote.h"

#include <QElapsedTimer>
#include <QTimer>
#include <spdlog/spdlog.h>

namespace opsdeck::processes {

using remote::CommandRequest;
using remote::CommandResult;

struct ProcessControl::StopState
{
    ManagedProcess process;
    QElapsedTimer clock;
    bool killSent = false;
    bool signalled = false; ///< its stop command was sent
    /// What the stop signalled (ManagedProcess::signalledIn()), followed by
    /// pid and start time from then on; empty: polled by its status.
    QString followed;
};

ProcessControl::ProcessControl(TransportFor transportFor, QObject *parent)
    : QObject(parent), m_transportFor(std::move(transportFor))
{
}

void ProcessControl::run(const ManagedProcess &process, const QString &script, Callback then)
{
    remote::Transport *transport = m_transportFor(process.host);
    if (!transport) {
        CommandResult result;
        result.outcome = CommandResult::Outcome::FailedToStart;
        result.errorText = QStringLiteral("host %1 is not reachable").arg(process.host);
        QTimer::singleShot(0, this, [then = std::move(then), result] { then(result); });
        return;
    }
    if (!m_connected.contains(transport)) {
        m_connected.insert(transport,
                           connect(transport, &remote::Transport::commandFinished, this,
                                   [this, transport](quint64 id, const CommandResult &result) {
                                       const Callback callback = m_pending.take({transport, id});
                                       if (callback)
                                           callback(result);
                                   }));
    }
    CommandRequest request;
    request.script = script;
    request.deadline = m_settings.commandDeadline;
    m_pending.insert({transport, transport->run(request)}, std::move(then));
}

QString ProcessControl::startUnderLock(const ManagedProcess &process,
                                       std::chrono::milliseconds deadline)
{
    // One start of a process at a time on its host (flock on `<pid
    // file>.start-lock`), and none while it runs: a start whose connection
    // was lost goes on on the host (its own session), and a second start
    // (a resume) must find its process, not launch another over it. The
    // start and its identity run in one subshell that holds the lock to the
    // end, even when the shell around it is killed (bash reads a script on
    // stdin line by line: a lost connection ends it after the command it is
    // in); the server itself never inherits the lock's descriptor.
    const int wait = std::max<int>(1, int(deadline.count() / 1000) - 1);
    // A file of the person's at the identity's name is refused before the
    // start, not found after it with a server running.
    return ManagedProcess::portFunctions() +
           QStringLiteral("opsdeck_name=%1; opsdeck_lock=%2\n"
                          "opsdeck_why=$(opsdeck_not_identity %7)\n"
                          "if [ -n \"$opsdeck_why\" ]; then echo \"$opsdeck_why: $opsdeck_name "
                          "not started (move it away)\" >&2; exit 1; fi\n"
                          "opsdeck_leftover_identity %7.tmp || { echo %7\".tmp is not a leftover "
                          "identity of OpsDeck's (a file of the person's?): $opsdeck_name not "
                          "started (move it away)\" >&2; exit 1; }\n"
                          // A link, even one naming nothing yet, is not followed.
                          "if [ -L \"$opsdeck_lock\" ] || { [ -e \"$opsdeck_lock\" ] && "
                          "[ ! -f \"$opsdeck_lock\" ]; }; then\n"
                          "  echo \"$opsdeck_lock is not a regular file: not started (remove "
                          "it)\" >&2; exit 1\n"
                          "fi\n"
                          // Made 0644 whatever the umask, without changing
                          // the umask the server inherits.
                          "[ -e \"$opsdeck_lock\" ] || ( umask 022; : >>\"$opsdeck_lock\" ) "
                          "2>/dev/null\n"
                          "if { exec 9>>\"$opsdeck_lock\"; } 2>/dev/null; then\n"
                          "  flock -w %3 9 || { echo \"another start of $opsdeck_name still runs "
                          "on this host (it holds $opsdeck_lock) after %3 s: not started\" >&2; "
                          "exit 1; }\n"
                          "fi\n"
                          "if ( %4 ) >/dev/null 2>&1; then\n"
                          "  echo \"$opsdeck_name already runs (its pid file's process, checked "
                          "against its identity): not started again\"; exit 0\n"
                          "fi\n"
                          "(\n(\n%5\n) 9>&- || exit $?\n%6\nexit 0\n)\n")
               .arg(shell::singleQuoted(process.name),
                    shell::singleQuoted(process.pidFile + QStringLiteral(".start-lock")),
                    QString::number(wait), process.status, process.start, process.recordIdentity,
                    shell::singleQuoted(ManagedProcess::identityFileOf(process.pidFile)));
}

void ProcessControl::startAll(const QVector<ManagedProcess> &processes)
{
    startNext(processes);
}

void ProcessControl::startNext(QVector<ManagedProcess> remaining)
{
    if (remaining.isEmpty()) {
        Q_EMIT startFinished(true, QStringLiteral("all started"));
        return;
    }
    const ManagedProcess process = remaining.takeFirst();
    const QString line = QStringLiteral("%1@%2: %3").arg(process.name, process.host, process.start);
    spdlog::info("start {}", line.toStdString());
    Q_EMIT progressed(QStringLiteral("start ") + line);
    // The identity is written by the same script, right after the start: a
    // console killed between the two (commands run in their own session, so
    // they outlive it) must not leave a process that stop refuses as not ours.
    const QString script = process.recordIdentity.isEmpty()
                               ? process.start
                               : startUnderLock(process, m_settings.commandDeadline);
    run(process, script, [this, process, remaining](const CommandResult &result) {
        if (!result.succeeded()) {
            const QString message =
                QStringLiteral("%1 on host %2 did not start: %3 %4")
                    .arg(process.name, process.host, result.describeWithReason(),
                         QString::fromUtf8(result.standardError).trimmed());
            spdlog::error("{}", message.toStdString());
            Q_EMIT startFinished(false, message);
            return;
        }
        // What the start said (its lock's "already runs", a script's own lines).
        if (const QString said = QString::fromUtf8(result.standardOutput).trimmed();
            !said.isEmpty())
            Q_EMIT progressed(QStringLiteral("%1@%2: %3").arg(process.name, process.host, said));
        startNext(remaining);
    });
}

void ProcessControl::stopAll(const QVector<ManagedProcess> &processes)
{
    if (processes.isEmpty()) {
        QTimer::singleShot(
            0, this, [this] { Q_EMIT stopFinished(true, QStringLiteral("nothing to stop")); });
        return;
    }
    m_stopsRunning += static_cast<int>(processes.size());
    for (const ManagedProcess &process : processes) {
        auto *state = new StopState{process, {}, false, false, {}};
        state->clock.start();
        // Signal only what runs: a stale pid file must not make us kill
        // whatever process now has that pid.
        run(process, process.status, [this, state](const CommandResult &status) {
            if (noAnswer(status))
                return stopDone(
                    state, false,
                    QStringLiteral("cannot tell whether %1 runs on host %2: its status command "
                                   "gave no answer (%3); nothing was stopped")
                        .arg(state->process.name, state->process.host,
                             status.describeWithReason()));
            if (status.exitCode == ManagedProcess::kNotOurs) {
                // Another process has that pid: it is not touched, and the
                // pid file stays for the person to look at.
                const QString said = QString::fromUtf8(status.standardOutput).trimmed();
                return stopDone(state, false,
                                QStringLiteral("%1 on host %2: %3")
                                    .arg(state->process.name, state->process.host,
                                         said.isEmpty()
                                             ? QStringLiteral("its pid file names another "
                                                              "process: nothing stopped")
                                             : said));
            }
            if (notRunning(status))
                return confirmFreed(state,
                                    QStringLiteral("%1 was not running").arg(state->process.name));
            const ManagedProcess &process = state->process;
            const QString line =
                QStringLiteral("%1@%2: %3").arg(process.name, process.host, process.stop);
            spdlog::info("stop {}", line.toStdString());
            Q_EMIT progressed(QStringLiteral("stop ") + line);
            // What the stop command itself returns matters less than what
            // status says afterwards.
            state->signalled = true;
            run(process, process.verified(process.stop), [this, state](const CommandResult &sent) {
                state->followed = state->process.signalledIn(sent.standardOutput);
                pollStopped(state);
            });
        });
    }
}

bool ProcessControl::noAnswer(const CommandResult &status)
{
    return status.outcome != CommandResult::Outcome::Exited || !status.inputPrompt.isEmpty();
}

bool ProcessControl::notRunning(const CommandResult &status)
{
    return !noAnswer(status) && status.exitCode != 0;
}

void ProcessControl::forgetStopped(StopState *state, const QString &line)
{
    if (state->process.forget.isEmpty())
        return stopDone(state, true, line);
    run(state->process, state->process.forget, [this, state, line](const CommandResult &forgot) {
        // Gone all the same; what was not removed is said.
        const QString kept = forgot.exitCode == ManagedProcess::kNotOurs
                                 ? QString::fromUtf8(forgot.standardOutput).trimmed()
                                 : QString();
        stopDone(state, true, kept.isEmpty() ? line : line + QStringLiteral(" (") + kept + u')');
    });
}

void ProcessControl::confirmFreed(StopState *state, const QString &line)
{
    if (state->process.served.isEmpty())
        return forgetStopped(state, line);
    run(state->process, state->process.served, [this, state, line](const CommandResult &served) {
        if (!noAnswer(served) && served.exitCode == 1)
            return forgetStopped(state, line);
        const ManagedProcess &process = state->process;
        // Signalled: its children may still be on their way out.
        const auto elapsed = std::chrono::milliseconds(state->clock.elapsed());
        if (state->signalled && elapsed < m_settings.stopGrace + m_settings.killGrace) {
            QTimer::singleShot(m_settings.pollInterval, this,
                               [this, state] { pollStopped(state); });
            return;
        }
        const QString still = noAnswer(served)
                                  ? QStringLiteral("whether port %1 is free gave no answer (%2)")
                                        .arg(process.port)
                                        .arg(served.describeWithReason())
                                  : QString::fromUtf8(served.standardOutput).trimmed();
        // Not called stopped while the service still answers on its port: a
        // restart would start a second one beside it, or fail to bind.
        stopDone(state, false,
                 QStringLiteral("%1 on host %2: the process its pid file names is gone, but %3: "
                                "not stopped (that process is not shown to be the %1's; stop it "
                                "by hand, or write its pid into %4)")
                     .arg(process.name, process.host, still, process.pidFile));
    });
}

void ProcessControl::checkRunning(const QVector<ManagedProcess> &processes)
{
    struct Round
    {
        int pending = 0;
        QStringList notRunning;
        QStringList unanswered;
    };
    auto round = std::make_shared<Round>();
    round->pending = static_cast<int>(processes.size());
    if (processes.isEmpty()) {
        QTimer::singleShot(0, this, [this] { Q_EMIT runningChecked({}, {}); });
        return;
    }
    for (const ManagedProcess &process : processes) {
        run(process, process.status,
            [this, round, name = process.name](const CommandResult &result) {
                if (notRunning(result))
                    round->notRunning.append(name);
                else if (noAnswer(result))
                    round->unanswered.append(name + QStringLiteral(": ") +
                                             result.describeWithReason());
                if (--round->pending == 0)
                    Q_EMIT runningChecked(round->notRunning, round->unanswered);
            });
    }
}

void ProcessControl::pollStopped(StopState *state)
{
    const ManagedProcess &process = state->process;
    const QString status =
        state->followed.isEmpty()
            ? process.status
            : ManagedProcess::followed(state->followed, QStringLiteral("exit 0"));
    run(process, status, [this, state](const CommandResult &result) {
        if (notRunning(result)) {
            confirmFreed(state,
                         QStringLiteral("%1 stopped after %2 ms%3")
                             .arg(state->process.name)
                             .arg(state->clock.elapsed())
                             .arg(state->killSent ? QStringLiteral(" (SIGKILL)") : QString()));
            return;
        }
        const auto elapsed = std::chrono::milliseconds(state->clock.elapsed());
        // No kill command (no pid file): nothing to send, only the wait.
        const bool canKill = !state->process.kill.isEmpty();
        if (canKill && !state->killSent && elapsed >= m_settings.stopGrace) {
            state->killSent = true;
            spdlog::warn("{} still runs {} ms after SIGTERM: {}", state->process.name.toStdString(),
                         elapsed.count(), state->process.kill.toStdString());
            Q_EMIT progressed(
                QStringLiteral("kill %1: %2").arg(state->process.name, state->process.kill));
            const ManagedProcess &process = state->process;
            run(process,
                state->followed.isEmpty() ? process.verified(process.kill)
                                          : ManagedProcess::followed(state->followed, process.kill),
                [](const CommandResult &) {});
        } else if ((state->killSent || !canKill) &&
                   elapsed >= m_settings.stopGrace + m_settings.killGrace) {
            stopDone(state, false,
                     QStringLiteral("%1 on host %2 still runs %3 (%4)")
                         .arg(state->process.name, state->process.host,
                              state->process.kill.isEmpty()
                                  ? QStringLiteral("%1 ms after its stop command, and there is "
                                                   "no kill command (no pid file)")
                                        .arg(elapsed.count())
                                  : QStringLiteral("after SIGKILL"),
                              result.describeWithReason()));
            return;
        }
        QTimer::singleShot(m_settings.pollInterval, this, [this, state] { pollStopped(state); });
    });
}

void ProcessControl::stopDone(StopState *state, bool exited, const QString &line)
{
    if (exited)
        spdlog::info("{}", line.toStdString());
    else
        spdlog::error("{}", line.toStdString());
    Q_EMIT progressed(line);
    if (!exited)
        m_stopFailures.append(line);
    delete state;
    if (--m_stopsRunning > 0)
        return;
    const bool ok = m_stopFailures.isEmpty();
    const QString message =
        ok ? QStringLiteral("every process exited") : m_stopFailures.join(u"; ");
    m_stopFailures.clear();
    Q_EMIT stopFinished(ok, message);
}

} // namespace opsdeck::processes
