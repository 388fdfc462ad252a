#include "badhttpserver.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace opsdeck::test {

namespace {

constexpr std::size_t hugeBodyBytes = 100u * 1000u * 1000u;

std::string okHeaders(std::size_t contentLength)
{
    return "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
           "Content-Length: " +
           std::to_string(contentLength) + "\r\nConnection: close\r\n\r\n";
}

/// A line of the fake metrics page the body-size modes repeat.
const std::string filler = "sglang:num_running_reqs{dp_rank=\"0\",model_name=\"m\"} 1.0\n";

/// Reads the request head (until a blank line, 64 KiB or 2 s) so that the
/// client has sent it before the answer starts; false when it closed.
bool readRequest(int fd, const std::atomic<bool> &stopping)
{
    std::string head;
    char buffer[4096];
    for (int rounds = 0; rounds < 20 && !stopping.load(); ++rounds) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 100) <= 0)
            continue;
        const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
        if (got <= 0)
            return false;
        head.append(buffer, static_cast<std::size_t>(got));
        if (head.find("\r\n\r\n") != std::string::npos || head.size() > 65536)
            return true;
    }
    return !head.empty();
}

} // namespace

struct BadHttpServer::Connection
{
    int fd = -1;
    std::thread thread;
    std::atomic<bool> done{false};
};

BadHttpServer::BadHttpServer(Mode mode) : m_mode(mode) {}

BadHttpServer::~BadHttpServer()
{
    stop();
}

std::string BadHttpServer::modeName(Mode mode)
{
    switch (mode) {
    case Mode::Garbage:
        return "garbage";
    case Mode::Truncated:
        return "truncated";
    case Mode::HugeBody:
        return "huge-body";
    case Mode::NonUtf8Metrics:
        return "non-utf8-metrics";
    case Mode::SlowHeaders:
        return "slow-headers";
    case Mode::Silent:
        return "silent";
    }
    return "unknown";
}

std::string BadHttpServer::nonUtf8Page()
{
    return "# HELP sglang:num_running_reqs running \xff\xfe requests\n"
           "# TYPE sglang:num_running_reqs gauge\n"
           "sglang:num_running_reqs{dp_rank=\"0\",model_name=\"m\"} 7\n"
           "# HELP sglang:num_queue_reqs queued \xc3\x28 requests\n"
           "# TYPE sglang:num_queue_reqs gauge\n"
           "sglang:num_queue_reqs{dp_rank=\"0\",model_name=\"\xc3\x28\xff\"} 2\n"
           "sglang:bad\x80name{dp_rank=\"0\"} 1\n"
           "sglang:token_usage{dp_rank=\"0\",model_name=\"\x80\"} 0.25\n";
}

std::string BadHttpServer::url() const
{
    return "http://127.0.0.1:" + std::to_string(m_port);
}

bool BadHttpServer::start()
{
    m_listenFd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (m_listenFd < 0)
        return false;
    const int yes = 1;
    ::setsockopt(m_listenFd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof address;
    if (::bind(m_listenFd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 ||
        ::listen(m_listenFd, 64) != 0 ||
        ::getsockname(m_listenFd, reinterpret_cast<sockaddr *>(&address), &length) != 0) {
        ::close(m_listenFd);
        m_listenFd = -1;
        return false;
    }
    m_port = ntohs(address.sin_port);
    m_acceptThread = std::thread([this] { acceptLoop(); });
    return true;
}

void BadHttpServer::stop()
{
    if (m_listenFd < 0)
        return;
    {
        // Under the mutex, so that a pause() between its check and its wait still wakes.
        std::lock_guard lock(m_mutex);
        m_stopping.store(true);
    }
    m_wake.notify_all();
    if (m_acceptThread.joinable())
        m_acceptThread.join();
    for (auto &connection : m_open) {
        connection->thread.join();
        ::close(connection->fd);
    }
    m_open.clear();
    ::close(m_listenFd);
    m_listenFd = -1;
}

void BadHttpServer::acceptLoop()
{
    // Polls with a short timeout so that stop() is seen within 50 ms.
    while (!m_stopping.load()) {
        reapFinished();
        pollfd p{m_listenFd, POLLIN, 0};
        if (::poll(&p, 1, 50) <= 0)
            continue;
        const int fd = ::accept4(m_listenFd, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        ++m_connections;
        auto connection = std::make_unique<Connection>();
        connection->fd = fd;
        Connection &ref = *connection;
        connection->thread = std::thread([this, &ref] {
            serve(ref);
            ref.done.store(true);
        });
        m_open.push_back(std::move(connection));
    }
}

void BadHttpServer::reapFinished()
{
    for (auto it = m_open.begin(); it != m_open.end();) {
        if ((*it)->done.load()) {
            (*it)->thread.join();
            ::close((*it)->fd);
            it = m_open.erase(it);
        } else {
            ++it;
        }
    }
}

bool BadHttpServer::pause(int ms)
{
    std::unique_lock lock(m_mutex);
    return !m_wake.wait_for(lock, std::chrono::milliseconds(ms),
                            [this] { return m_stopping.load(); });
}

bool BadHttpServer::sendAll(int fd, const char *data, std::size_t size)
{
    while (size > 0 && !m_stopping.load()) {
        pollfd p{fd, POLLOUT, 0};
        if (::poll(&p, 1, 100) <= 0)
            continue; // client not reading: look at m_stopping again
        const ssize_t sent = ::send(fd, data, size, MSG_NOSIGNAL);
        if (sent <= 0)
            return false;
        data += sent;
        size -= static_cast<std::size_t>(sent);
    }
    return size == 0;
}

void BadHttpServer::serve(Connection &connection)
{
    const int fd = connection.fd;
    if (m_mode == Mode::Silent) {
        // Holds the connection open, reading and dropping, until either side ends.
        char buffer[4096];
        while (!m_stopping.load()) {
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, 100) > 0 && ::recv(fd, buffer, sizeof buffer, 0) <= 0)
                return;
        }
        return;
    }
    if (!readRequest(fd, m_stopping))
        return;
    switch (m_mode) {
    case Mode::Garbage: {
        std::string bytes(4096, '\0');
        unsigned state = 2463534242u; // xorshift: the same bytes every run
        for (char &c : bytes) {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            c = static_cast<char>(state & 0xff);
        }
        sendAll(fd, bytes.data(), bytes.size());
        break;
    }
    case Mode::Truncated: {
        const std::string answer =
            okHeaders(10000) + filler + filler.substr(0, 100 - filler.size());
        sendAll(fd, answer.data(), answer.size());
        break;
    }
    case Mode::HugeBody: {
        const std::string head = okHeaders(hugeBodyBytes);
        if (!sendAll(fd, head.data(), head.size()))
            return;
        std::string chunk;
        while (chunk.size() + filler.size() <= 64 * 1024)
            chunk += filler;
        std::size_t left = hugeBodyBytes;
        while (left > 0 && !m_stopping.load()) {
            const std::size_t n = std::min(left, chunk.size());
            if (!sendAll(fd, chunk.data(), n))
                return; // the client gave up (its size limit): that is the point
            left -= n;
        }
        break;
    }
    case Mode::NonUtf8Metrics: {
        const std::string page = nonUtf8Page();
        const std::string answer = okHeaders(page.size()) + page;
        sendAll(fd, answer.data(), answer.size());
        break;
    }
    case Mode::SlowHeaders: {
        const std::string answer = okHeaders(3) + "ok\n";
        for (char c : answer)
            if (!sendAll(fd, &c, 1) || !pause(1000))
                return;
        break;
    }
    case Mode::Silent:
        break;
    }
    ::shutdown(fd, SHUT_WR);
}

} // namespace opsdeck::test
