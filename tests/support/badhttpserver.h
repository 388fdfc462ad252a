#pragma once

#include <atomic>
#include <condition_variable>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace opsdeck::test {

/// A loopback HTTP server that misbehaves in one way, for bad-input tests.
/// POSIX sockets and std::threads (no Qt), so that it keeps misbehaving
/// whatever the test's event loop does. Every path gets the same answer.
///
/// Bounded: one thread per connection, each ends when the client closes,
/// when its answer is done, or at stop(); stop() (and the destructor) wakes
/// and joins them all within about 100 ms.
class BadHttpServer
{
public:
    enum class Mode
    {
        /// Random-looking bytes (deterministic), no status line, then close.
        Garbage,
        /// `200` with Content-Length 10,000 and 100 bytes of a metrics page, then close.
        Truncated,
        /// `200` with a 100 MB metrics-looking body (Content-Length given),
        /// written as fast as the client reads it.
        HugeBody,
        /// `200` and a metrics page whose HELP text, label values and one
        /// metric name hold bytes that are not UTF-8 (0xff, 0xc3 0x28, a lone
        /// 0x80); `sglang:num_running_reqs` = 7 stays readable.
        NonUtf8Metrics,
        /// A valid `200` answer, but its headers go out one byte per second.
        SlowHeaders,
        /// Accepts the connection and never answers.
        Silent,
    };

    explicit BadHttpServer(Mode mode);
    ~BadHttpServer();
    BadHttpServer(const BadHttpServer &) = delete;
    BadHttpServer &operator=(const BadHttpServer &) = delete;

    /// Listens on 127.0.0.1 and a free port; false when the socket fails.
    bool start();
    void stop();
    int port() const { return m_port; }
    /// `http://127.0.0.1:PORT`.
    std::string url() const;
    /// Connections accepted so far.
    int connections() const { return m_connections.load(); }
    /// "garbage", "truncated", "huge-body", "non-utf8-metrics", "slow-headers", "silent".
    static std::string modeName(Mode mode);
    /// The page NonUtf8Metrics serves.
    static std::string nonUtf8Page();

private:
    struct Connection;
    void acceptLoop();
    void serve(Connection &connection);
    bool sendAll(int fd, const char *data, std::size_t size);
    /// Waits up to `ms` or until stop(); false when stopping.
    bool pause(int ms);
    void reapFinished();

    Mode m_mode;
    int m_listenFd = -1;
    int m_port = 0;
    std::atomic<bool> m_stopping{false};
    std::atomic<int> m_connections{0};
    std::thread m_acceptThread;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::list<std::unique_ptr<Connection>> m_open;
};

} // namespace opsdeck::test
