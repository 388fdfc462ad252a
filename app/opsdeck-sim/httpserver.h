#pragma once

#include <atomic>
#include <httplib.h>
#include <mutex>
#include <openssl/ssl.h>
#include <set>
#include <string>
#include <thread>

namespace opsdeck::sim {

/// cpp-httplib server configured for the simulator, with its own connection loop.
///
/// Why not plain httplib::Server: its defaults (8 threads, keep-alive 5 s / 5
/// requests, listen backlog 5) would serialize a batch and hide connection
/// reuse, and its keep-alive loop only notices a shutdown after the idle
/// timeout. This subclass
///  - runs a ThreadPool of Settings::threads workers (one per live connection:
///    httplib serves all requests of a connection on one worker, in order);
///  - widens the listen backlog to 1024 so a burst of 96 connects is not
///    throttled by SYN retries;
///  - serves keep-alive itself: counts requests per connection (exposed to
///    handlers through currentRequestIndex(), which the reused-stall fault
///    uses), waits for the next request in 100 ms slices so shutdown() ends
///    idle connections at once, and closes every connection on shutdown.
///
/// Threads: bindTo/start/shutdown from the owning (main) thread; handlers run
/// on pool threads.
class HttpServer : public httplib::Server
{
public:
    struct Settings
    {
        std::string name = "http"; ///< used in log lines
        int threads = 64;
        int keepAliveTimeoutS = 60;
        int keepAliveMaxCount = 1000;
        int readTimeoutS = 30;
        int writeTimeoutS = 30;
        bool logRequests = false;
        /// As SGLang's --api-key: requests without `Authorization: Bearer <apiKey>`
        /// get 401 {"error":"Unauthorized"}, except OPTIONS and paths starting with
        /// /health or /metrics (SGLang's add_api_key_middleware). Empty: no check.
        std::string apiKey;
        /// PEM certificate chain and private key: serve HTTPS. Both empty: plain HTTP.
        std::string tlsCertFile;
        std::string tlsKeyFile;
    };

    explicit HttpServer(Settings settings);
    ~HttpServer() override;

    /// Binds `host:port` (0 = a free port). On failure returns false with an
    /// error text that names the port ("port 8080 is already in use ...").
    bool bindTo(const std::string &host, int port, std::string &error);
    int boundPort() const { return m_port; }
    /// Starts accepting on a thread of its own; returns once accepting.
    void start();
    /// Stops accepting, closes all client connections, waits for the workers.
    /// Handlers blocked on something else must be released first by their owner.
    void shutdown();
    bool stopping() const { return m_stopping.load(); }
    /// "https" when serving TLS, else "http" (for the "listening on" line).
    std::string scheme() const { return m_tls ? "https" : "http"; }

    /// httplib's pre-routing handler, run after the API-key check (which
    /// answers 401 itself): hides httplib::Server's so the check cannot be replaced.
    HttpServer &set_pre_routing_handler(HandlerWithResponse handler);

    /// 1-based index of the request being handled on its connection (1 = fresh
    /// connection, 2 = first reuse, ...). Only meaningful on a handler thread.
    static int currentRequestIndex();
    /// False once the client of the request being handled closed its connection.
    static bool currentClientConnected();

private:
    /// Overrides an internal of cpp-httplib 0.11 (Debian 12's): the virtual
    /// that serves one accepted socket, so that the connection loop is ours
    /// (request index per connection, TLS, idle timeouts). Check it on every
    /// cpp-httplib upgrade: it is not a public API.
    bool process_and_close_socket(socket_t sock) override;
    bool waitForNextRequest(int sock, SSL *ssl) const;
    bool authorized(const httplib::Request &request) const;
    SSL *acceptTls(int sock);

    Settings m_settings;
    int m_port = 0;
    std::thread m_thread;
    std::atomic<bool> m_stopping{false};
    std::mutex m_connectionsMutex;
    std::set<int> m_connections;
    SSL_CTX *m_tls = nullptr;
    std::string m_tlsError; // why the certificate or key could not be loaded
    HandlerWithResponse m_preRouting;
};

} // namespace opsdeck::sim
