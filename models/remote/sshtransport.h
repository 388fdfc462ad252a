#pragma once

#include "sshconnectionstate.h"
#include "sshsettings.h"
#include "transport.h"

#include <QHash>
#include <functional>
#include <memory>

namespace opsdeck::remote {

class SshJobQueue;
class SshSession;

/// Runs commands on one host over SSH (libssh 0.10), with LocalTransport's
/// semantics (transport.h, commandrequest.h): every run() ends in one
/// commandFinished carrying its id; exit code, signal name, TimedOut,
/// Cancelled, FailedToStart (connect, host key or authentication failed:
/// errorText says which, connectionState() says why), or Unknown when the
/// channel closed without an exit status (case B15).
///
/// One session per transport, owned by its own thread (SshJobQueue); commands
/// (and SftpFiles operations) run one at a time in the order given. A lost
/// session is reconnected, failed connects are retried with backoff, and an
/// idle session sends keep-alives (sshjobqueue.h, sshsettings.h); the state
/// (connectionStateChanged) says connecting, authenticating, connected,
/// failed with the reason, or reconnecting in N s. `sudo` requests run as
/// `sudo -n` (sudocommand.h). How a request becomes the remote
/// command line (argv quoting, `bash -s` for scripts, `env` for the
/// environment, `cd` for the directory): sshcommandline.h.
/// A missing program exits 127 (the remote shell says so on stderr); it is not
/// FailedToStart as with LocalTransport, because the shell started.
/// Thread: use it from the thread it lives in; run() and cancel() never block.
class SshTransport : public Transport
{
    Q_OBJECT
public:
    SshTransport(QString hostName, SshSettings settings, QObject *parent = nullptr);
    /// Kills a running command (bounded: SshChannelRun::killGrace twice) and
    /// closes the session; queued commands get no result.
    ~SshTransport() override;

    QString hostName() const override { return m_hostName; }
    quint64 run(const CommandRequest &request) override;
    void cancel(quint64 id) override;
    int runningCount() const override { return m_pending; }

    /// The session's state as last reported by its thread (any thread).
    SshConnectionState connectionState() const;
    /// The operator accepted this unknown host key (SHA256:...) after a
    /// connect was refused with SshConnectionState::hostKeyUnknown: the next
    /// command connects, accepts exactly that key and saves it to known_hosts.
    /// Any other key is still refused; a changed key is never accepted.
    void acceptHostKey(const QString &fingerprint);

    /// Runs `task` in the session's thread, queued behind the commands given
    /// before it (SshJobQueue::SessionTask: it gets the connected session,
    /// or nullptr and why). For SftpFiles. A task still queued when the
    /// transport is deleted is dropped without being run.
    using SessionTask = std::function<bool(SshSession *session, const QString &error)>;
    void runSessionTask(SessionTask task);

Q_SIGNALS:
    void connectionStateChanged(const opsdeck::remote::SshConnectionState &state);

private:
    QString m_hostName;
    quint64 m_nextId = 1;
    int m_pending = 0;
    QHash<quint64, CommandRequest> m_sudoRequests; ///< as given, for the sudo message
    std::unique_ptr<SshJobQueue> m_queue;
};

} // namespace opsdeck::remote
