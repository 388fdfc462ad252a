#pragma once

#include "sshsettings.h"

#include <QString>
#include <QUrl>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <libssh/libssh.h>
#include <memory>
#include <mutex>
#include <thread>

namespace opsdeck::remote {

class SshSession;

/// A local port on 127.0.0.1 forwarded through one ssh host to a service's
/// host:port (the inventory's `via: <host>`; issue 5, reaching services
/// behind a host): each TCP connection accepted on the port gets its own
/// direct-tcpip channel (RFC 4254 7.2, ssh -L), which the host's sshd
/// connects to the target, as the host itself resolves it.
///
/// The tunnel has its own session to the host (not the host's command
/// queue), owned by its own thread, which accepts, opens channels and pumps
/// data (SshTunnelPump): libssh sessions are not thread-safe, and a busy
/// tunnel must not wait behind a long command nor hold it up. The session
/// gets the same host-key checks and authentication as any (SshSession),
/// and reconnects when a connection arrives after it was lost.
///
/// Public functions may be called from any thread; none blocks except
/// waitReady() and the destructor (bounded: one poll interval plus closing,
/// or the connect timeout when a reconnect is under way).
class SshTunnel
{
public:
    enum class Phase
    {
        Starting, ///< connecting, or checking the forward
        Ready,    ///< the host connected and forwarded a test connection to the target
        Failed    ///< see errorText(); connections are closed at once until it reconnects
    };

    /// `viaHost` names the host in messages (the inventory's host name);
    /// `settings` reach it. `targetHost`:`targetPort` is the service as the
    /// via host sees it (e.g. 127.0.0.1:30000 on that host).
    SshTunnel(QString viaHost, SshSettings settings, QString targetHost, int targetPort);
    /// Closes the port (it is free again when this returns), every
    /// connection, and the session.
    ~SshTunnel();
    SshTunnel(const SshTunnel &) = delete;
    SshTunnel &operator=(const SshTunnel &) = delete;

    /// Listens on 127.0.0.1:`localPort` (0: a free port the kernel picks)
    /// and starts the thread, which connects and checks the forward with one
    /// connection to the target, opened and closed. Connections made before
    /// that are served once it is done. False (errorText() says why) when the
    /// port cannot be bound or start() was called before.
    bool start(quint16 localPort = 0);
    /// Blocks until Ready or Failed, or `deadline`; returns the phase then.
    Phase waitReady(std::chrono::milliseconds deadline);

    Phase phase() const;
    /// The last failure, naming the via host and the target: connect, host
    /// key, authentication, or the host refusing to forward (e.g. sshd's
    /// `AllowTcpForwarding no`). Empty when none happened.
    QString errorText() const;
    /// The port listened on (127.0.0.1); 0 before start().
    quint16 localPort() const { return m_localPort; }
    QString viaHost() const { return m_viaHost; }
    /// Lets the next connection try the host again at once, even within the
    /// pause after a refused host key or login (the operator has just
    /// accepted the key, or stored the password). Any thread.
    void retryNow() { m_retryNow = true; }
    /// Connections being pumped now.
    int openConnections() const { return m_openConnections; }
    /// Connections accepted and forwarded since start().
    qint64 connectionsForwarded() const { return m_forwarded; }

    /// `url` with host and port replaced by 127.0.0.1:localPort() when it
    /// points at this tunnel's target (same host and port, the scheme's
    /// default port counted); scheme, path, query and user info unchanged.
    /// Any other URL is returned as is. https through a tunnel keeps the
    /// name check only if the client is told the original name (not done).
    QUrl tunnelledUrl(const QUrl &url) const;
    /// The same mapping for any port (the part used by the poller and probes).
    static QUrl tunnelledUrl(const QUrl &url, quint16 localPort);

private:
    void run();
    bool ensureSession(std::unique_ptr<SshSession> &session);
    ssh_channel openForward(SshSession &session, int clientFd);
    void setFailed(const QString &error);
    void setPhase(Phase phase);
    QString target() const;

    QString m_viaHost;
    SshSettings m_settings;
    QString m_targetHost;
    int m_targetPort;
    int m_listenFd = -1;
    int m_wakeFd = -1; ///< eventfd: the destructor wakes the thread's poll
    quint16 m_localPort = 0;
    std::atomic<bool> m_stopping{false};
    std::atomic<int> m_openConnections{0};
    std::atomic<qint64> m_forwarded{0};
    /// No new connect before this (tunnel thread only): a refused host key or
    /// login would otherwise be retried, logged and audited for every
    /// connection the poller makes. Connections meanwhile are closed at once.
    std::chrono::steady_clock::time_point m_retryAfter{};
    std::atomic<bool> m_retryNow{false};
    mutable std::mutex m_mutex;
    std::condition_variable m_phaseChanged;
    Phase m_phase = Phase::Starting;
    QString m_error;
    std::thread m_thread;
};

} // namespace opsdeck::remote
