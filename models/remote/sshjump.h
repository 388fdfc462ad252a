#pragma once

#include "sshconnectionstate.h"
#include "sshsettings.h"

#include <QString>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

namespace opsdeck::remote {

/// One ProxyJump hop done inside OpsDeck (issue 5, sessions): a session to
/// the jump host, with the same host-key checks, keys and logs as any other
/// (SshSession), and a direct-tcpip channel from it to the target's
/// address:port. The target's own session then runs over one end of a
/// socketpair whose other end this class pumps to and from the channel.
///
/// Threads: the jump host's session lives in this object's own thread
/// (created, used and freed there; libssh sessions are not thread-safe),
/// because it must keep pumping while the target's session, in its owner's
/// thread, blocks in key exchange or a command. open() and the destructor
/// may be called from any one thread.
class SshJump
{
public:
    /// A hop as `ProxyJump [user@]host[:port]` gives it.
    struct Hop
    {
        QString host; ///< ssh config alias or address of the jump host
        QString user; ///< empty: from the config
        int port = 0; ///< 0: from the config
    };

    /// libssh 0.10 turns `ProxyJump` into the ProxyCommand
    /// `ssh [-l USER] [-p PORT] [-J MORE] -W '[%h]:%p' HOST` (config.c); this
    /// reads it back. nullopt when `command` is not of that form (a real
    /// ProxyCommand). `more` gets the `-J` hops (several hops; libssh's order
    /// is not OpenSSH's, so the caller refuses them).
    static std::optional<Hop> fromProxyCommand(const QString &command, QString *more);

    /// `settings` reach the jump host; `depth` counts the hops before it
    /// (a loop in the config ends at SshSession::maxJumpDepth).
    SshJump(SshSettings settings, int depth);
    /// Stops the pump, closes the channel and the jump host's session, joins.
    ~SshJump();
    SshJump(const SshJump &) = delete;
    SshJump &operator=(const SshJump &) = delete;

    /// Connects to the jump host and opens the channel to
    /// `targetAddress:targetPort` (resolved by the jump host). Blocks until
    /// both are done or failed (bounded by the connect timeout per step).
    /// Returns Connected with `*fd` set to the socket for SSH_OPTIONS_FD (libssh
    /// then owns and closes it), or Failed naming the jump host: its own
    /// failure kind (HostKeyRefused, Auth...), Connect when it refused the
    /// forward (e.g. sshd's AllowTcpForwarding no).
    SshConnectionState open(const QString &targetAddress, int targetPort, int *fd);

    /// `user@host:port` of the jump host's session, after open().
    QString label() const;

private:
    void run(QByteArray targetAddress, int targetPort);
    void publish(const SshConnectionState &state, int fd, const QString &label);

    SshSettings m_settings;
    int m_depth;
    std::atomic<bool> m_stopping{false};
    mutable std::mutex m_mutex;
    std::condition_variable m_ready;
    bool m_done = false;
    SshConnectionState m_state;
    int m_fd = -1;
    QString m_label;
    std::thread m_thread;
};

} // namespace opsdeck::remote
