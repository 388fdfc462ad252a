#pragma once

#include "managedprocess.h"
#include "transport.h"

#include <QHash>
#include <QObject>
#include <QVector>
#include <chrono>
#include <functional>

namespace opsdeck::processes {

/// Starts and stops managed processes through their hosts' transports:
/// the same path for the demo's local host and, later, SSH hosts.
///
/// Stopping is verified, not assumed: after the stop command, the status
/// command is polled until it says the process is gone; past `stopGrace`
/// the kill command (SIGKILL) is sent and polling goes on for `killGrace`.
/// A process whose pid is gone counts as exited only once nothing listens
/// on its port (ManagedProcess::served): a shell signalled without its
/// server, or a pid holding a copy of the server's socket, is not a stop.
/// stopFinished() comes only when every process has exited (ok) or is
/// reported as still running (not ok, named in the message).
///
/// A status command answers with its exit code: 0 runs, any other code means
/// not running. Anything else is no answer, and a process whose status gives
/// no answer is neither stopped nor forgotten (its pid file stays): a script
/// bash refused, a timeout, a signal, an unknown result, or a status that
/// asked for input (case B16 C, its `read` got EOF and its exit code means
/// nothing). stopFinished(false, ...) then quotes why.
/// Every command is logged before it runs. Thread: the GUI thread or any
/// thread with an event loop; never blocks.
class ProcessControl : public QObject
{
    Q_OBJECT
public:
    /// Returns the transport of an inventory host, or nullptr (unreachable).
    using TransportFor = std::function<remote::Transport *(const QString &host)>;

    struct Settings
    {
        std::chrono::milliseconds commandDeadline = std::chrono::seconds(15);
        std::chrono::milliseconds stopGrace = std::chrono::seconds(10);
        std::chrono::milliseconds killGrace = std::chrono::seconds(5);
        std::chrono::milliseconds pollInterval = std::chrono::milliseconds(100);
    };

    explicit ProcessControl(TransportFor transportFor, QObject *parent = nullptr);
    void setSettings(const Settings &settings) { m_settings = settings; }

    /// Starts them one after the other, in order; stops at the first failure.
    void startAll(const QVector<ManagedProcess> &processes);
    /// Stops them all at once; see the class comment.
    void stopAll(const QVector<ManagedProcess> &processes);
    /// Runs every status command once; emits runningChecked() with the names
    /// of those whose status says they are not running (exit code != 0, no
    /// prompt), and of those whose status gave no answer (see the class comment).
    void checkRunning(const QVector<ManagedProcess> &processes);

Q_SIGNALS:
    /// One line for the operator: a command about to run, or an outcome.
    void progressed(const QString &line);
    void startFinished(bool ok, const QString &message);
    void stopFinished(bool ok, const QString &message);
    /// `unanswered`: "NAME: why" for each status that gave no answer (a
    /// timeout, a lost connection, a prompt): neither running nor not.
    void runningChecked(const QStringList &notRunning, const QStringList &unanswered);

private:
    /// The start script of a process with a pid file: under the host's
    /// start lock, not run when the process already runs, its identity
    /// written after it.
    static QString startUnderLock(const ManagedProcess &process,
                                  std::chrono::milliseconds deadline);
    struct StopState;
    using Callback = std::function<void(const remote::CommandResult &)>;
    void run(const ManagedProcess &process, const QString &script, Callback then);
    void startNext(QVector<ManagedProcess> remaining);
    void pollStopped(StopState *state);
    /// Once the pid is gone: forgets it when the service's port is free,
    /// else polls on within the grace (a signalled process's children still
    /// leaving) and fails naming what still serves it.
    void confirmFreed(StopState *state, const QString &line);
    void forgetStopped(StopState *state, const QString &line);
    static bool notRunning(const remote::CommandResult &status);
    static bool noAnswer(const remote::CommandResult &status);
    void stopDone(StopState *state, bool exited, const QString &line);

    TransportFor m_transportFor;
    Settings m_settings;
    QHash<QPair<remote::Transport *, quint64>, Callback> m_pending;
    QHash<remote::Transport *, QMetaObject::Connection> m_connected;
    int m_stopsRunning = 0;
    QStringList m_stopFailures;
};

} // namespace opsdeck::processes
