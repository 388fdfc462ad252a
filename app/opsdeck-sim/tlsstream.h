#pragma once

#include <chrono>
#include <httplib.h>
#include <openssl/ssl.h>
#include <string>

namespace opsdeck::sim {

/// httplib::Stream over one TLS connection that HttpServer accepted and
/// handshook itself (httplib 0.11 keeps its SSL stream private, and our own
/// connection loop replaces SSLServer's). Reads wait for the socket only when
/// OpenSSL holds no decrypted bytes. One stream per connection, used by that
/// connection's worker thread only; it does not own `ssl` or the socket.
class TlsStream : public httplib::Stream
{
public:
    TlsStream(SSL *ssl, int sock, std::chrono::milliseconds readTimeout,
              std::chrono::milliseconds writeTimeout);

    bool is_readable() const override;
    bool is_writable() const override;
    ssize_t read(char *ptr, size_t size) override;
    ssize_t write(const char *ptr, size_t size) override;
    void get_remote_ip_and_port(std::string &ip, int &port) const override;
    void get_local_ip_and_port(std::string &ip, int &port) const override;
    socket_t socket() const override { return m_sock; }

private:
    SSL *m_ssl;
    int m_sock;
    std::chrono::milliseconds m_readTimeout;
    std::chrono::milliseconds m_writeTimeout;
};

} // namespace opsdeck::sim
