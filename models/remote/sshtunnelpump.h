#pragma once

#include <QByteArray>
#include <QtGlobal>
#include <libssh/libssh.h>

namespace opsdeck::remote {

/// Moves bytes both ways between one local stream socket and one open
/// forwarded (direct-tcpip) channel, without ever blocking: the owner polls
/// localFd() for localEvents() and the session's socket for input, then calls
/// step() until it reports no progress. Used by SshTunnel (an accepted TCP
/// connection) and SshJump (one end of a socketpair that carries the next
/// hop's SSH session).
/// Thread: the one that owns the channel's session (libssh sessions are not
/// thread-safe); the pump is created, stepped and destroyed there.
class SshTunnelPump
{
public:
    /// Takes ownership of both: the channel is closed and freed, the socket
    /// closed, by the destructor. `localFd` is made non-blocking.
    SshTunnelPump(ssh_channel channel, int localFd);
    ~SshTunnelPump();
    SshTunnelPump(const SshTunnelPump &) = delete;
    SshTunnelPump &operator=(const SshTunnelPump &) = delete;

    /// Moves what can move now. Returns true when any byte moved (call again:
    /// libssh may hold more data read from the session's socket).
    bool step();
    /// True once both directions ended (EOF each way, everything delivered),
    /// or either side failed; the owner then destroys the pump.
    bool finished() const;

    int localFd() const { return m_fd; }
    /// poll() events worth waiting for on localFd(): POLLIN while the peer's
    /// window has room, POLLOUT while bytes wait for the local side.
    short localEvents() const;

    /// True while this pump needs the session's socket read: it can take
    /// channel data, or waits for the peer to open its window. When no pump
    /// does, the owner leaves the socket out of poll() instead of spinning
    /// on data nobody will read yet.
    bool wantsSession() const;

    qint64 bytesToLocal() const { return m_bytesToLocal; }   ///< from the channel, bytes
    qint64 bytesToRemote() const { return m_bytesToRemote; } ///< into the channel, bytes

    /// Bytes held for a slow local reader before the channel is no longer
    /// read (the peer's window then fills and it waits): bounds memory.
    static constexpr qsizetype maxPending = 256 * 1024;

private:
    bool readChannel();
    bool flushLocal();
    bool readLocal();

    ssh_channel m_channel;
    int m_fd;
    QByteArray m_toLocal;
    bool m_localEof = false;  ///< the local side sent EOF (forwarded as channel EOF)
    bool m_remoteEof = false; ///< the channel sent EOF or closed
    bool m_localShut = false; ///< the remote EOF was passed on (shutdown SHUT_WR)
    bool m_failed = false;
    qint64 m_bytesToLocal = 0;
    qint64 m_bytesToRemote = 0;
};

} // namespace opsdeck::remote
