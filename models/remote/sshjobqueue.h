#pragma once

#include "commandrequest.h"
#include "commandresult.h"
#include "sshconnectionstate.h"
#include "sshsettings.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

namespace opsdeck::remote {

class SshSession;

/// The thread that owns one host's libssh session and runs its commands one
/// after another (libssh sessions are not thread-safe; DESIGN.md, threads).
/// It connects on the first command and again when the session was lost.
/// Callbacks run in that thread; SshTransport hands them to its own thread.
/// Not built yet: reconnect backoff and keep-alive (each command that finds
/// no session tries one connect).
class SshJobQueue
{
public:
    using Finished = std::function<void(quint64 id, const CommandResult &result)>;
    using StateChanged = std::function<void(const SshConnectionState &state)>;

    SshJobQueue(SshSettings settings, QString hostName, Finished finished,
                StateChanged stateChanged);
    /// Cancels the running command (bounded by SshChannelRun::killGrace),
    /// drops queued ones without a result, closes the session, joins.
    ~SshJobQueue();

    /// Any thread.
    void push(quint64 id, const CommandRequest &request);
    /// Any thread. A queued command is reported Cancelled at once; the running
    /// one is killed (its result is then Cancelled).
    void cancel(quint64 id);
    SshConnectionState state() const;

private:
    struct Job
    {
        quint64 id = 0;
        CommandRequest request;
    };
    void loop();
    CommandResult runJob(const Job &job);
    bool ensureSession(CommandResult &failure);
    void setState(const SshConnectionState &state);

    SshSettings m_settings;
    QString m_hostName;
    Finished m_finished;
    StateChanged m_stateChanged;

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Job> m_jobs;
    quint64 m_running = 0;
    std::set<quint64> m_cancelled;
    bool m_stopping = false;
    SshConnectionState m_state;

    std::unique_ptr<SshSession> m_session; ///< touched only by m_thread
    std::thread m_thread;                  ///< last: starts after the members it uses
};

} // namespace opsdeck::remote
