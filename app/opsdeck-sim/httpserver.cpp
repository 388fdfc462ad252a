#include "httpserver.h"

#include "logger.h"
#include "socketstream.h"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace opsdeck::sim {

namespace {

struct ConnectionState
{
    int sock = -1;
    int requestIndex = 0;
};
thread_local ConnectionState t_connection;

// Asks the kernel directly whether host:port can be bound, because httplib
// only reports "bind failed" without the reason. Returns errno, 0 when free,
// -1 when the host is not a numeric IPv4 address (then httplib decides).
int probeBind(const std::string &host, int port)
{
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1)
        return -1;
    const int sock = ::socket(AF_INET, SOCK_STREAM, 0);
    if (sock < 0)
        return -1;
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes); // as httplib does
    const int rc = ::bind(sock, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
    const int err = rc == 0 ? 0 : errno;
    ::close(sock);
    return err;
}

} // namespace

HttpServer::HttpServer(Settings settings) : m_settings(std::move(settings))
{
    const int threads = m_settings.threads;
    new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
    set_keep_alive_max_count(static_cast<size_t>(m_settings.keepAliveMaxCount));
    set_keep_alive_timeout(m_settings.keepAliveTimeoutS);
    set_read_timeout(m_settings.readTimeoutS, 0);
    set_write_timeout(m_settings.writeTimeoutS, 0);
    // Small SSE chunks must leave at once, not wait for Nagle.
    set_tcp_nodelay(true);
    if (m_settings.logRequests) {
        const std::string name = m_settings.name;
        set_logger([name](const httplib::Request &req, const httplib::Response &res) {
            Logger::info(name + " " + req.method + " " + req.path + " " +
                         std::to_string(res.status) + " from " + req.remote_addr + ":" +
                         std::to_string(req.remote_port) + " request#" +
                         std::to_string(t_connection.requestIndex) + " on its connection");
        });
    }
}

HttpServer::~HttpServer()
{
    if (m_thread.joinable())
        shutdown();
}

bool HttpServer::bindTo(const std::string &host, int port, std::string &error)
{
    if (port != 0) {
        const int err = probeBind(host, port);
        if (err == EADDRINUSE) {
            error = "port " + std::to_string(port) + " is already in use on " + host +
                    " (cannot start the " + m_settings.name + " server)";
            return false;
        }
        if (err > 0) {
            error = "cannot bind " + host + ":" + std::to_string(port) + " for the " +
                    m_settings.name + " server: " + std::strerror(err);
            return false;
        }
        if (!bind_to_port(host, port)) {
            error = "cannot bind " + host + ":" + std::to_string(port) + " (port " +
                    std::to_string(port) + ") for the " + m_settings.name + " server";
            return false;
        }
        m_port = port;
    } else {
        m_port = bind_to_any_port(host);
        if (m_port <= 0) {
            error =
                "cannot bind a free port on " + host + " for the " + m_settings.name + " server";
            return false;
        }
    }
    // httplib listens with a backlog of 5; calling listen() again widens it.
    ::listen(svr_sock_, 1024);
    return true;
}

void HttpServer::start()
{
    m_thread = std::thread([this] { listen_after_bind(); });
    // stop() is a no-op before the listen loop runs, so wait for it to be up.
    for (int i = 0; i < 2000 && !is_running(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void HttpServer::shutdown()
{
    m_stopping = true;
    stop();
    {
        std::lock_guard lock(m_connectionsMutex);
        for (const int sock : m_connections)
            ::shutdown(sock, SHUT_RDWR);
    }
    if (m_thread.joinable())
        m_thread.join();
}

int HttpServer::currentRequestIndex()
{
    return t_connection.requestIndex;
}

bool HttpServer::currentClientConnected()
{
    return t_connection.sock < 0 || SocketStream::peerOpen(t_connection.sock);
}

bool HttpServer::waitForNextRequest(int sock) const
{
    using namespace std::chrono;
    const auto deadline = steady_clock::now() + seconds(m_settings.keepAliveTimeoutS);
    while (!m_stopping) {
        pollfd pfd{sock, POLLIN, 0};
        const int rc = ::poll(&pfd, 1, 100);
        if (rc > 0)
            return true; // a request, or EOF: process_request tells which
        if (rc < 0 && errno != EINTR)
            return false;
        if (steady_clock::now() >= deadline)
            return false;
    }
    return false;
}

bool HttpServer::process_and_close_socket(socket_t sock)
{
    {
        std::lock_guard lock(m_connectionsMutex);
        m_connections.insert(sock);
    }
    if (m_stopping)
        ::shutdown(sock, SHUT_RDWR);
    SocketStream stream(sock, std::chrono::seconds(m_settings.readTimeoutS),
                        std::chrono::seconds(m_settings.writeTimeoutS));
    t_connection = ConnectionState{sock, 0};
    bool ok = false;
    const int maxCount = m_settings.keepAliveMaxCount;
    for (int served = 0; served < maxCount && waitForNextRequest(sock); ++served) {
        t_connection.requestIndex = served + 1;
        const bool closeConnection = served + 1 == maxCount;
        bool connectionClosed = false;
        ok = process_request(stream, closeConnection, connectionClosed, {});
        if (!ok || connectionClosed)
            break;
    }
    t_connection = ConnectionState{};
    {
        std::lock_guard lock(m_connectionsMutex);
        m_connections.erase(sock);
    }
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return ok;
}

} // namespace opsdeck::sim
