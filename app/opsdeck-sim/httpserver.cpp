#include "httpserver.h"

#include "logger.h"
#include "socketstream.h"
#include "tlsstream.h"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
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
    // httplib sets only SO_REUSEPORT; without SO_REUSEADDR the connections a
    // stopped sim closed (TIME_WAIT) block a restart on the same port for a
    // minute, where a real engine (uvicorn sets it) restarts at once.
    set_socket_options([](socket_t sock) {
        const int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEPORT, &yes, sizeof yes);
    });
    if (!m_settings.tlsCertFile.empty() || !m_settings.tlsKeyFile.empty()) {
        m_tls = SSL_CTX_new(TLS_server_method());
        if (!m_tls ||
            SSL_CTX_use_certificate_chain_file(m_tls, m_settings.tlsCertFile.c_str()) != 1)
            m_tlsError = "cannot load the TLS certificate " + m_settings.tlsCertFile;
        else if (SSL_CTX_use_PrivateKey_file(m_tls, m_settings.tlsKeyFile.c_str(),
                                             SSL_FILETYPE_PEM) != 1 ||
                 SSL_CTX_check_private_key(m_tls) != 1)
            m_tlsError = "cannot load the TLS key " + m_settings.tlsKeyFile +
                         " (or it does not match " + m_settings.tlsCertFile + ")";
        if (m_tls)
            SSL_CTX_set_min_proto_version(m_tls, TLS1_2_VERSION);
    }
    httplib::Server::set_pre_routing_handler(
        [this](const httplib::Request &request, httplib::Response &response) {
            if (!authorized(request)) {
                response.status = 401;
                response.set_content(R"({"error":"Unauthorized"})", "application/json");
                return HandlerResponse::Handled;
            }
            return m_preRouting ? m_preRouting(request, response) : HandlerResponse::Unhandled;
        });
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
    if (m_tls)
        SSL_CTX_free(m_tls);
}

HttpServer &HttpServer::set_pre_routing_handler(HandlerWithResponse handler)
{
    m_preRouting = std::move(handler);
    return *this;
}

bool HttpServer::authorized(const httplib::Request &request) const
{
    if (m_settings.apiKey.empty() || request.method == "OPTIONS")
        return true;
    // SGLang leaves its health and metrics endpoints open (add_api_key_middleware).
    if (request.path.rfind("/health", 0) == 0 || request.path.rfind("/metrics", 0) == 0)
        return true;
    return request.get_header_value("Authorization") == "Bearer " + m_settings.apiKey;
}

SSL *HttpServer::acceptTls(int sock)
{
    // The handshake is bounded like any read: a client that never speaks TLS
    // holds its worker no longer than the read timeout.
    const timeval timeout{m_settings.readTimeoutS, 0};
    ::setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    SSL *ssl = SSL_new(m_tls);
    if (ssl && SSL_set_fd(ssl, sock) == 1 && SSL_accept(ssl) == 1)
        return ssl;
    if (m_settings.logRequests)
        Logger::info(m_settings.name + " TLS handshake failed");
    SSL_free(ssl);
    return nullptr;
}

bool HttpServer::bindTo(const std::string &host, int port, std::string &error)
{
    if (!m_tlsError.empty()) {
        error = m_tlsError + " for the " + m_settings.name + " server";
        return false;
    }
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

bool HttpServer::waitForNextRequest(int sock, SSL *ssl) const
{
    using namespace std::chrono;
    if (ssl && SSL_pending(ssl) > 0)
        return true; // already decrypted: the socket may stay quiet
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
    SSL *ssl = m_tls ? acceptTls(sock) : nullptr;
    const std::chrono::seconds readTimeout(m_settings.readTimeoutS);
    const std::chrono::seconds writeTimeout(m_settings.writeTimeoutS);
    std::unique_ptr<httplib::Stream> stream;
    if (ssl)
        stream = std::make_unique<TlsStream>(ssl, sock, readTimeout, writeTimeout);
    else if (!m_tls)
        stream = std::make_unique<SocketStream>(sock, readTimeout, writeTimeout);
    t_connection = ConnectionState{sock, 0};
    bool ok = false;
    const int maxCount = m_settings.keepAliveMaxCount;
    for (int served = 0; stream && served < maxCount && waitForNextRequest(sock, ssl); ++served) {
        t_connection.requestIndex = served + 1;
        const bool closeConnection = served + 1 == maxCount;
        bool connectionClosed = false;
        ok = process_request(*stream, closeConnection, connectionClosed, {});
        if (!ok || connectionClosed)
            break;
    }
    t_connection = ConnectionState{};
    stream.reset();
    if (ssl) {
        SSL_shutdown(ssl);
        SSL_free(ssl);
    }
    {
        std::lock_guard lock(m_connectionsMutex);
        m_connections.erase(sock);
    }
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return ok;
}

} // namespace opsdeck::sim
