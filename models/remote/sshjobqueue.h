#pragma once

#include "commandrequest.h"
#include "commandresult.h"
#include "outputchannel.h"
#include "sshconnectionstate.h"
#include "sshsettings.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

namespace opsdeck::remote {

class SshSession;

/// The thread that owns one host's libssh session and runs its jobs one
/// after another (libssh sessions are not thread-safe; DESIGN.md, threads):
/// commands, and session tasks such as SFTP file operations (SftpFiles).
/// It connects on the first job. While idle it reads the session every
/// second, so a dropped connection is seen at once, and sends a keep-alive
/// every SshSettings::keepAliveInterval. A lost session is reconnected at
/// once; a connect that fails (TCP, key exchange) is retried in the
/// background after reconnectInitialDelay, doubling to reconnectMaxDelay,
/// and the delay is reset by a success. Jobs that come while a retry is
/// planned fail at once with the last reason and the time to the next
/// attempt (never a hang). Host key, authentication and config failures are
/// not retried by themselves: they wait for the operator, so jobs in the next
/// operatorWait fail at once with that reason (a poller must not knock, log
/// and ask again every few seconds); after that, or at once after
/// setAcceptedFingerprint(), the next job tries again.
/// Callbacks run in that thread; SshTransport hands them to its own thread.
class SshJobQueue
{
public:
    using Finished = std::function<void(quint64 id, const CommandResult &result)>;
    using StateChanged = std::function<void(const SshConnectionState &state)>;
    /// Kept output of the running command, gathered (SshChannelRun); all of
    /// an id's calls come before its Finished call.
    using Output = std::function<void(quint64 id, OutputChannel channel, const QByteArray &chunk)>;
    /// Runs in the queue's thread with the connected session, or with
    /// nullptr and the reason when there is none (connect failed, cancelled
    /// while queued): it must then report its own failure. Returns false
    /// only when it found the session gone before it changed anything; it is
    /// then run once more after a reconnect.
    using SessionTask = std::function<bool(SshSession *session, const QString &error)>;

    SshJobQueue(SshSettings settings, QString hostName, Finished finished,
                StateChanged stateChanged, Output output = {});
    /// Cancels the running command (bounded by SshChannelRun::killGrace),
    /// drops queued ones without a result, closes the session, joins.
    ~SshJobQueue();

    /// Any thread.
    void push(quint64 id, const CommandRequest &request);
    /// Any thread. Queued behind the commands; a queued task that is
    /// cancelled runs with nullptr and "cancelled".
    void pushTask(quint64 id, SessionTask task);
    /// Any thread. A queued command is reported Cancelled at once; the running
    /// one is killed (its result is then Cancelled).
    void cancel(quint64 id);
    SshConnectionState state() const;
    /// How long a host-key, authentication or config failure stands before a job tries again.
    static constexpr std::chrono::seconds operatorWait{10};
    /// Any thread. An unknown host key's fingerprint the operator accepted
    /// after the connect was refused (the window's dialog): the next connect
    /// accepts exactly that key and saves it (SshSettings::acceptedFingerprint).
    void setAcceptedFingerprint(const QString &fingerprint);

private:
    struct Job
    {
        quint64 id = 0;
        CommandRequest request;
        SessionTask task; ///< set for a task; then request is unused
    };
    using Clock = std::chrono::steady_clock;
    void loop();
    CommandResult runJob(const Job &job);
    void runTask(const Job &job);
    bool ensureSession(QString &error);
    bool connect(QString &error);
    void sessionLost();
    void idle();
    void setState(const SshConnectionState &state);

    SshSettings m_settings;
    QString m_hostName;
    Finished m_finished;
    StateChanged m_stateChanged;
    Output m_output;

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Job> m_jobs;
    quint64 m_running = 0;
    std::set<quint64> m_cancelled;
    bool m_stopping = false;
    SshConnectionState m_state;
    QString m_acceptedFingerprint; ///< from setAcceptedFingerprint(); empty: the settings'
    std::chrono::steady_clock::time_point m_holdUntil{}; ///< see operatorWait

    // Touched only by m_thread.
    std::unique_ptr<SshSession> m_session;
    bool m_retryPlanned = false;       ///< a connect is due at m_retryAt
    Clock::time_point m_retryAt;       ///< when the next connect may be tried
    std::chrono::milliseconds m_delay; ///< the wait after the next failed connect
    Clock::time_point m_lastSent;      ///< last time something went to the server
    std::thread m_thread;              ///< last: starts after the members it uses
};

} // namespace opsdeck::remote
