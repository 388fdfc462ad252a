#include "tlsstream.h"

#include "socketstream.h"

#include <cerrno>
#include <poll.h>

namespace opsdeck::sim {

namespace {

bool waitFor(int sock, short events, std::chrono::milliseconds timeout)
{
    pollfd pfd{sock, events, 0};
    for (;;) {
        const int rc = ::poll(&pfd, 1, static_cast<int>(timeout.count()));
        if (rc < 0 && errno == EINTR)
            continue;
        return rc > 0;
    }
}

} // namespace

TlsStream::TlsStream(SSL *ssl, int sock, std::chrono::milliseconds readTimeout,
                     std::chrono::milliseconds writeTimeout)
    : m_ssl(ssl), m_sock(sock), m_readTimeout(readTimeout), m_writeTimeout(writeTimeout)
{
}

bool TlsStream::is_readable() const
{
    return SSL_pending(m_ssl) > 0 || waitFor(m_sock, POLLIN, m_readTimeout);
}

bool TlsStream::is_writable() const
{
    return waitFor(m_sock, POLLOUT, m_writeTimeout) && SocketStream::peerOpen(m_sock);
}

ssize_t TlsStream::read(char *ptr, size_t size)
{
    if (SSL_pending(m_ssl) <= 0 && !waitFor(m_sock, POLLIN, m_readTimeout))
        return -1;
    const int n = SSL_read(m_ssl, ptr, static_cast<int>(std::min<size_t>(size, 1 << 30)));
    if (n > 0)
        return n;
    return SSL_get_error(m_ssl, n) == SSL_ERROR_ZERO_RETURN ? 0 : -1;
}

ssize_t TlsStream::write(const char *ptr, size_t size)
{
    if (!waitFor(m_sock, POLLOUT, m_writeTimeout))
        return -1;
    const int n = SSL_write(m_ssl, ptr, static_cast<int>(std::min<size_t>(size, 1 << 30)));
    return n > 0 ? n : -1;
}

void TlsStream::get_remote_ip_and_port(std::string &ip, int &port) const
{
    SocketStream(m_sock, m_readTimeout, m_writeTimeout).get_remote_ip_and_port(ip, port);
}

void TlsStream::get_local_ip_and_port(std::string &ip, int &port) const
{
    SocketStream(m_sock, m_readTimeout, m_writeTimeout).get_local_ip_and_port(ip, port);
}

} // namespace opsdeck::sim
