#pragma once

#include <chrono>
#include <httplib.h>
#include <string>
#include <vector>

namespace opsdeck::sim {

/// httplib::Stream over one accepted TCP socket, used by HttpServer's own
/// connection loop (httplib 0.11 keeps its socket stream private).
///
/// Reads are buffered (httplib reads request lines byte by byte). Writes use
/// MSG_NOSIGNAL so a vanished client is an error, not SIGPIPE. is_writable()
/// also reports a peer that closed its side, which is how a streaming
/// response learns that its client went away. One stream per connection,
/// used by that connection's worker thread only.
class SocketStream : public httplib::Stream
{
public:
    SocketStream(int sock, std::chrono::milliseconds readTimeout,
                 std::chrono::milliseconds writeTimeout);

    bool is_readable() const override;
    bool is_writable() const override;
    ssize_t read(char *ptr, size_t size) override;
    ssize_t write(const char *ptr, size_t size) override;
    void get_remote_ip_and_port(std::string &ip, int &port) const override;
    void get_local_ip_and_port(std::string &ip, int &port) const override;
    socket_t socket() const override { return m_sock; }

    /// False once the peer of `sock` has closed the connection (non-blocking peek).
    static bool peerOpen(int sock);
    /// poll() on `sock` for `events` (POLLIN, POLLOUT) up to `timeout`, again
    /// after EINTR: > 0 when ready, 0 at the timeout, < 0 on an error.
    /// TlsStream waits on its socket the same way.
    static int waitFor(int sock, short events, std::chrono::milliseconds timeout);

private:
    int m_sock;
    std::chrono::milliseconds m_readTimeout;
    std::chrono::milliseconds m_writeTimeout;
    std::vector<char> m_buffer;
    size_t m_bufferOffset = 0;
    size_t m_bufferSize = 0;
};

} // namespace opsdeck::sim
