#pragma once

#include "httpserver.h"
#include "service.h"
#include "simoptions.h"
#include "url.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace httplib {
class Client;
}

namespace opsdeck::sim {

/// A bounded load generator for the demo (--role traffic): --clients N
/// threads (at most 256), each holding one keep-alive connection to
/// --target and running multi-round conversations (--rounds, growing
/// message history) with a random think time around --idle-gap-ms between
/// rounds, so decode's running requests move. Logs one summary line per N
/// completed requests; serves GET /health and GET /stats (JSON counters) on
/// --port. Stops on SIGTERM, after --duration seconds or --requests requests.
/// Threads: one per client, plus the status server's pool.
class TrafficGenerator : public Service
{
public:
    explicit TrafficGenerator(const SimOptions &options);
    ~TrafficGenerator() override;

    bool start(std::string &error) override;
    void stop() override;
    bool finished() const override;

private:
    struct Message
    {
        std::string role;
        std::string content;
    };

    void clientLoop(int index);
    bool takeRequestSlot();
    std::string requestBody(const std::vector<Message> &conversation) const;
    std::optional<std::string> sendRound(httplib::Client &client,
                                         const std::vector<Message> &conversation,
                                         std::string &error);
    void recordCompletion(double seconds, int tokens);
    std::string statsJson() const;

    const SimOptions m_options;
    std::optional<Url> m_target;
    HttpServer m_server;
    std::vector<std::thread> m_threads;
    std::atomic<bool> m_stopping{false};
    std::atomic<int> m_activeClients{0};
    std::atomic<long> m_sent{0};
    std::atomic<long> m_completed{0};
    std::atomic<long> m_errors{0};
    std::atomic<int> m_inFlight{0};
    std::atomic<long> m_tokens{0};
    std::chrono::steady_clock::time_point m_startedAt;
    mutable std::mutex m_mutex; ///< guards the fields below
    std::vector<httplib::Client *> m_clients;
    double m_latencySum = 0; ///< since the last summary line
    double m_latencyMax = 0;
    long m_windowCount = 0;
    std::chrono::steady_clock::time_point m_windowStart;
    bool m_started = false;
};

} // namespace opsdeck::sim
