#include "tlsstream.h"

#include "socketstream.h"

#include <poll.h>

namespace opsdeck::sim {

TlsStream::TlsStream(SSL *ssl, int sock, std::chrono::milliseconds readTimeout,
                     std::chrono::milliseconds writeTimeout)
    : m_ssl(ssl), m_sock(sock), m_readTimeout(readTimeout), m_writeTimeout(writeTimeout)
{
}

bool TlsStream::is_readable() const
{
    return SSL_pending(m_ssl) > 0 || SocketStream::waitFor(m_sock, POLLIN, m_readTimeout) > 0;
}

bool TlsStream::is_writable() const
{
    return SocketStream::waitFor(m_sock, POLLOUT, m_writeTimeout) > 0 &&
           SocketStream::peerOpen(m_sock);
}

ssize_t TlsStream::read(char *ptr, size_t size)
{
    if (SSL_pending(m_ssl) <= 0 && SocketStream::waitFor(m_sock, POLLIN, m_readTimeout) <= 0)
        return -1;
    const int n = SSL_read(m_ssl, ptr, static_cast<int>(std::min<size_t>(size, 1 << 30)));
    if (n > 0)
        return n;
    return SSL_get_error(m_ssl, n) == SSL_ERROR_ZERO_RETURN ? 0 : -1;
}

ssize_t TlsStream::write(const char *ptr, size_t size)
{
    if (SocketStream::waitFor(m_sock, POLLOUT, m_writeTimeout) <= 0)
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
