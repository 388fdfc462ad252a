#include "sshtunnelpump.h"

#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace opsdeck::remote {

namespace {

constexpr int chunk = 32 * 1024;

} // namespace

SshTunnelPump::SshTunnelPump(ssh_channel channel, int localFd) : m_channel(channel), m_fd(localFd)
{
    ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) | O_NONBLOCK);
}

SshTunnelPump::~SshTunnelPump()
{
    ::close(m_fd);
    if (ssh_channel_is_open(m_channel))
        ssh_channel_close(m_channel);
    ssh_channel_free(m_channel);
}

bool SshTunnelPump::finished() const
{
    if (m_failed)
        return true;
    return m_remoteEof && m_toLocal.isEmpty() && (m_localEof || ssh_channel_is_closed(m_channel));
}

short SshTunnelPump::localEvents() const
{
    short events = 0;
    if (!m_localEof && ssh_channel_window_size(m_channel) > 0)
        events |= POLLIN;
    if (!m_toLocal.isEmpty())
        events |= POLLOUT;
    return events;
}

bool SshTunnelPump::wantsSession() const
{
    return (!m_remoteEof && m_toLocal.size() < maxPending) ||
           (!m_localEof && ssh_channel_window_size(m_channel) == 0);
}

bool SshTunnelPump::readChannel()
{
    bool moved = false;
    char buffer[chunk];
    while (!m_remoteEof && m_toLocal.size() < maxPending) {
        const int n = ssh_channel_read_nonblocking(m_channel, buffer, sizeof buffer, 0);
        if (n > 0) {
            m_toLocal.append(buffer, n);
            m_bytesToLocal += n;
            moved = true;
            continue;
        }
        if (n == SSH_ERROR) {
            m_remoteEof = true; // the connection is gone: deliver what is held, then end
        } else if (ssh_channel_is_eof(m_channel) || ssh_channel_is_closed(m_channel)) {
            // EOF counts only once the buffered data was read (read returned 0).
            m_remoteEof = true;
        }
        break;
    }
    return moved;
}

bool SshTunnelPump::flushLocal()
{
    bool moved = false;
    while (!m_toLocal.isEmpty()) {
        const ssize_t n = ::send(m_fd, m_toLocal.constData(), static_cast<size_t>(m_toLocal.size()),
                                 MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            m_toLocal.remove(0, n);
            moved = true;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            break;
        m_failed = true; // the local side closed: nothing can reach it any more
        m_toLocal.clear();
        break;
    }
    if (m_remoteEof && m_toLocal.isEmpty() && !m_localShut) {
        ::shutdown(m_fd, SHUT_WR); // the local reader sees the remote EOF
        m_localShut = true;
    }
    return moved;
}

bool SshTunnelPump::readLocal()
{
    bool moved = false;
    char buffer[chunk];
    for (int round = 0; round < 8 && !m_localEof; ++round) {
        // Never more than the peer's window, so ssh_channel_write cannot block.
        const uint32_t window = ssh_channel_window_size(m_channel);
        if (window == 0 || ssh_channel_is_closed(m_channel))
            break;
        const ssize_t n =
            ::recv(m_fd, buffer, std::min<size_t>(sizeof buffer, window), MSG_DONTWAIT);
        if (n > 0) {
            if (ssh_channel_write(m_channel, buffer, static_cast<uint32_t>(n)) != n) {
                m_failed = true;
                break;
            }
            m_bytesToRemote += n;
            moved = true;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            break;
        m_localEof = true; // 0: orderly close; an error ends the direction too
        if (ssh_channel_is_open(m_channel))
            ssh_channel_send_eof(m_channel);
    }
    return moved;
}

bool SshTunnelPump::step()
{
    if (m_failed)
        return false;
    bool moved = readChannel();
    moved = flushLocal() || moved;
    if (!m_failed)
        moved = readLocal() || moved;
    return moved;
}

} // namespace opsdeck::remote
