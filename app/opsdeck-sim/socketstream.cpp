#include "socketstream.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

namespace opsdeck::sim {

namespace {

void addressOf(const sockaddr_storage &addr, std::string &ip, int &port)
{
    char text[INET6_ADDRSTRLEN] = {};
    if (addr.ss_family == AF_INET) {
        const auto *in = reinterpret_cast<const sockaddr_in *>(&addr);
        inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
        port = ntohs(in->sin_port);
    } else if (addr.ss_family == AF_INET6) {
        const auto *in6 = reinterpret_cast<const sockaddr_in6 *>(&addr);
        inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
        port = ntohs(in6->sin6_port);
    }
    ip = text;
}

} // namespace

SocketStream::SocketStream(int sock, std::chrono::milliseconds readTimeout,
                           std::chrono::milliseconds writeTimeout)
    : m_sock(sock), m_readTimeout(readTimeout), m_writeTimeout(writeTimeout), m_buffer(16384)
{
}

int SocketStream::waitFor(int sock, short events, std::chrono::milliseconds timeout)
{
    pollfd pfd{sock, events, 0};
    for (;;) {
        const int rc = ::poll(&pfd, 1, static_cast<int>(timeout.count()));
        if (rc < 0 && errno == EINTR)
            continue;
        return rc;
    }
}

bool SocketStream::peerOpen(int sock)
{
    char byte = 0;
    const ssize_t n = ::recv(sock, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0)
        return true; // a pipelined request is waiting: still open
    if (n == 0)
        return false; // orderly close by the peer
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
}

bool SocketStream::is_readable() const
{
    return m_bufferOffset < m_bufferSize || waitFor(m_sock, POLLIN, m_readTimeout) > 0;
}

bool SocketStream::is_writable() const
{
    return waitFor(m_sock, POLLOUT, m_writeTimeout) > 0 && peerOpen(m_sock);
}

ssize_t SocketStream::read(char *ptr, size_t size)
{
    if (m_bufferOffset >= m_bufferSize) {
        if (waitFor(m_sock, POLLIN, m_readTimeout) <= 0)
            return -1;
        ssize_t n = 0;
        do {
            n = ::recv(m_sock, m_buffer.data(), m_buffer.size(), 0);
        } while (n < 0 && errno == EINTR);
        if (n <= 0)
            return n;
        m_bufferOffset = 0;
        m_bufferSize = static_cast<size_t>(n);
    }
    const size_t count = std::min(size, m_bufferSize - m_bufferOffset);
    std::memcpy(ptr, m_buffer.data() + m_bufferOffset, count);
    m_bufferOffset += count;
    return static_cast<ssize_t>(count);
}

ssize_t SocketStream::write(const char *ptr, size_t size)
{
    if (waitFor(m_sock, POLLOUT, m_writeTimeout) <= 0)
        return -1;
    ssize_t n = 0;
    do {
        n = ::send(m_sock, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
}

void SocketStream::get_remote_ip_and_port(std::string &ip, int &port) const
{
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    if (::getpeername(m_sock, reinterpret_cast<sockaddr *>(&addr), &len) == 0)
        addressOf(addr, ip, port);
}

void SocketStream::get_local_ip_and_port(std::string &ip, int &port) const
{
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    if (::getsockname(m_sock, reinterpret_cast<sockaddr *>(&addr), &len) == 0)
        addressOf(addr, ip, port);
}

} // namespace opsdeck::sim
