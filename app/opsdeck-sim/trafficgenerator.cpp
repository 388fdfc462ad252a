#include "trafficgenerator.h"

#include "logger.h"
#include "serversettings.h"
#include "shutdownflag.h"
#include "simjson.h"

#include <cstdio>
#include <httplib.h>
#include <random>

namespace opsdeck::sim {

namespace {

HttpServer::Settings statusSettings(const SimOptions &o)
{
    return serverSettings(o, "traffic-status", 8);
}

const char *const kQuestions[] = {
    "Summarise the state of the decode batch.",
    "Which knob changed since yesterday, and why does it matter?",
    "List the services of the cluster and their health.",
    "Explain why the prefill and decode must be restarted together.",
    "How long did the last tool call take through the proxy?",
    "Compare fresh and reused connection latency on this path.",
};

// The content of choices[0]'s `field` ("message" or "delta"), or nullptr.
const std::string *choiceContent(const std::optional<Json> &doc, const char *field)
{
    if (!doc || !doc->is_object())
        return nullptr;
    const auto choices = doc->find("choices");
    if (choices == doc->end() || !choices->is_array() || choices->empty())
        return nullptr;
    const Json &first = choices->front();
    const auto part = first.is_object() ? first.find(field) : first.end();
    return part == first.end() ? nullptr : stringMember(*part, "content");
}

// Content of an answer: the message content, or the concatenated SSE deltas.
std::string answerText(const std::string &body, bool stream)
{
    if (!stream) {
        const std::optional<Json> doc = parsedJson(body);
        const std::string *content = choiceContent(doc, "message");
        return content ? *content : std::string();
    }
    std::string text;
    size_t pos = 0;
    while ((pos = body.find("data: ", pos)) != std::string::npos) {
        const size_t end = body.find("\n\n", pos);
        const std::string event =
            body.substr(pos + 6, end == std::string::npos ? end : end - pos - 6);
        pos = end == std::string::npos ? body.size() : end;
        const std::optional<Json> doc = parsedJson(event);
        if (const std::string *content = choiceContent(doc, "delta"))
            text += *content;
    }
    return text;
}

} // namespace

TrafficGenerator::TrafficGenerator(const SimOptions &options)
    : m_options(options), m_target(Url::parse(options.target)), m_server(statusSettings(options))
{
    m_server.Get("/health", [](const httplib::Request &, httplib::Response &res) {
        res.set_content(R"({"status":"ok"})", "application/json");
    });
    m_server.Get("/stats", [this](const httplib::Request &, httplib::Response &res) {
        res.set_content(statsJson(), "application/json");
    });
}

TrafficGenerator::~TrafficGenerator()
{
    stop();
}

bool TrafficGenerator::start(std::string &error)
{
    if (!m_target) {
        error = "invalid --target '" + m_options.target + "' (expected http://HOST:PORT)";
        return false;
    }
    if (!m_server.bindTo(m_options.host, m_options.port, error))
        return false;
    m_server.start();
    m_started = true;
    Logger::info("listening on http://" + m_options.host + ":" +
                 std::to_string(m_server.boundPort()));
    Logger::info(std::to_string(m_options.clients) + " clients -> " + m_options.target +
                 ", max_tokens " + std::to_string(m_options.maxTokens) + ", idle gap ~" +
                 std::to_string(m_options.idleGapMs) + " ms, " + std::to_string(m_options.rounds) +
                 " rounds per conversation" + (m_options.stream ? ", streaming" : ""));
    m_startedAt = m_windowStart = std::chrono::steady_clock::now();
    m_activeClients = m_options.clients;
    for (int i = 0; i < m_options.clients; ++i)
        m_threads.emplace_back([this, i] { clientLoop(i); });
    return true;
}

void TrafficGenerator::stop()
{
    if (!m_started)
        return;
    m_started = false;
    m_stopping = true;
    {
        // Unblock clients waiting on a long completion.
        std::lock_guard lock(m_mutex);
        for (httplib::Client *client : m_clients)
            client->stop();
    }
    for (auto &thread : m_threads)
        thread.join();
    m_threads.clear();
    m_server.shutdown();
    Logger::info("stopped after " + std::to_string(m_completed.load()) + " completed requests, " +
                 std::to_string(m_errors.load()) + " errors");
}

bool TrafficGenerator::finished() const
{
    return m_started && m_activeClients.load() == 0;
}

bool TrafficGenerator::takeRequestSlot()
{
    if (m_stopping || ShutdownFlag::triggered())
        return false;
    if (m_options.durationS > 0 && std::chrono::steady_clock::now() - m_startedAt >
                                       std::chrono::duration<double>(m_options.durationS))
        return false;
    return m_options.totalRequests <= 0 || m_sent++ < m_options.totalRequests;
}

std::string TrafficGenerator::requestBody(const std::vector<Message> &conversation) const
{
    Json messages = Json::array();
    for (const Message &message : conversation)
        messages.push_back({{"role", message.role}, {"content", message.content}});
    Json body{{"model", m_options.servedModelName},
              {"messages", messages},
              {"max_tokens", m_options.maxTokens},
              {"stream", m_options.stream}};
    if (m_options.stream)
        body["stream_options"] = {{"include_usage", true}};
    return dumped(body);
}

std::optional<std::string> TrafficGenerator::sendRound(httplib::Client &client,
                                                       const std::vector<Message> &conversation,
                                                       std::string &error)
{
    const auto res = client.Post(m_target->path() + "/v1/chat/completions",
                                 requestBody(conversation), "application/json");
    if (!res) {
        error = httplib::to_string(res.error());
        return std::nullopt;
    }
    if (res->status != 200) {
        error = "status " + std::to_string(res->status) + ": " + res->body.substr(0, 200);
        return std::nullopt;
    }
    return answerText(res->body, m_options.stream);
}

void TrafficGenerator::clientLoop(int index)
{
    httplib::Client client(m_target->host(), m_target->port());
    client.set_keep_alive(true);
    // httplib sends headers and body in two writes; Nagle would hold the body
    // for the server's delayed ACK (40 ms).
    client.set_tcp_nodelay(true);
    client.set_connection_timeout(std::chrono::seconds(5));
    client.set_read_timeout(std::chrono::seconds(m_options.upstreamTimeoutS));
    {
        std::lock_guard lock(m_mutex);
        m_clients.push_back(&client);
    }
    std::mt19937 rng(static_cast<unsigned>(index * 7919 + 17));
    const int gap = m_options.idleGapMs;
    std::uniform_int_distribution<int> think(gap / 2, gap + gap / 2);
    std::uniform_int_distribution<size_t> question(0, std::size(kQuestions) - 1);
    long conversationId = 0;
    std::vector<Message> conversation;
    while (takeRequestSlot()) {
        if (static_cast<int>(conversation.size()) >= 2 * m_options.rounds) {
            conversation.clear();
            ++conversationId;
        }
        conversation.push_back({"user", "Client " + std::to_string(index) + ", conversation " +
                                            std::to_string(conversationId) + ": " +
                                            kQuestions[question(rng)]});
        const auto start = std::chrono::steady_clock::now();
        ++m_inFlight;
        std::string error;
        const auto answer = sendRound(client, conversation, error);
        --m_inFlight;
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (answer) {
            conversation.push_back({"assistant", *answer});
            recordCompletion(seconds, m_options.maxTokens);
        } else {
            conversation.pop_back();
            if (m_stopping || ShutdownFlag::triggered())
                break;
            if (m_errors++ < 20)
                Logger::warn("client " + std::to_string(index) + " request failed: " + error);
            ShutdownFlag::sleepFor(std::chrono::seconds(1)); // back off, do not hammer
        }
        if (gap > 0 && !ShutdownFlag::sleepFor(std::chrono::milliseconds(think(rng))))
            break;
    }
    {
        std::lock_guard lock(m_mutex);
        std::erase(m_clients, &client);
    }
    --m_activeClients;
}

void TrafficGenerator::recordCompletion(double seconds, int tokens)
{
    const long completed = ++m_completed;
    m_tokens += tokens;
    std::lock_guard lock(m_mutex);
    m_latencySum += seconds;
    m_latencyMax = std::max(m_latencyMax, seconds);
    ++m_windowCount;
    if (completed % m_options.clients != 0)
        return;
    const auto now = std::chrono::steady_clock::now();
    const double window = std::chrono::duration<double>(now - m_windowStart).count();
    char text[256];
    std::snprintf(text, sizeof text,
                  "%ld completed (+%ld in %.1f s), %ld errors, %d in flight, "
                  "latency mean %.3f s max %.3f s, %.1f tokens/s",
                  completed, m_windowCount, window, m_errors.load(), m_inFlight.load(),
                  m_latencySum / m_windowCount, m_latencyMax,
                  window > 0 ? m_windowCount * m_options.maxTokens / window : 0.0);
    Logger::info(text);
    m_latencySum = m_latencyMax = 0;
    m_windowCount = 0;
    m_windowStart = now;
}

std::string TrafficGenerator::statsJson() const
{
    const double elapsedS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_startedAt).count();
    return dumped(Json{{"target", m_options.target},
                       {"clients", m_options.clients},
                       {"active_clients", m_activeClients.load()},
                       {"completed", m_completed.load()},
                       {"errors", m_errors.load()},
                       {"in_flight", m_inFlight.load()},
                       {"completion_tokens", m_tokens.load()},
                       {"elapsed_s", elapsedS}});
}

} // namespace opsdeck::sim
