#pragma once

#include "sshconnectionstate.h"
#include "sshsettings.h"
#include "transport.h"

#include <memory>

namespace opsdeck::remote {

class SshJobQueue;

/// Runs commands on one host over SSH (libssh 0.10), with LocalTransport's
/// semantics (transport.h, commandrequest.h): every run() ends in one
/// commandFinished carrying its id; exit code, signal name, TimedOut,
/// Cancelled, FailedToStart (connect, host key or authentication failed:
/// errorText says which, connectionState() says why), or Unknown when the
/// channel closed without an exit status (case B15).
///
/// One session per transport, owned by its own thread (SshJobQueue); commands
/// run one at a time in the order given. How a request becomes the remote
/// command line (argv quoting, `bash -c` for scripts, `env` for the
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

Q_SIGNALS:
    void connectionStateChanged(const opsdeck::remote::SshConnectionState &state);

private:
    QString m_hostName;
    quint64 m_nextId = 1;
    int m_pending = 0;
    std::unique_ptr<SshJobQueue> m_queue;
};

} // namespace opsdeck::remote
