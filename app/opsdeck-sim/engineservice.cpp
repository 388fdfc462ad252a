#include "engineservice.h"

#include "logger.h"
#include "serversettings.h"
#include "shutdownflag.h"

#include <algorithm>
#include <cstdio>
#include <random>
#include <string_view>
#include <unistd.h>

namespace opsdeck::sim {

namespace {

int engineThreads(const SimOptions &o)
{
    // httplib serves a connection on one worker thread for its whole life, and
    // every running, waiting or idle kept-alive client connection holds one:
    // at least twice the admitted concurrency, and room for the 256 clients of
    // the traffic generator behind a router's connection pool, plus a margin
    // so a full batch never starves probes and /metrics.
    return o.threads > 0 ? o.threads : std::max(2 * o.dp * o.maxRunningRequests, 512) + 32;
}

StepModel::Constants constantsOf(const SimOptions &o)
{
    StepModel::Constants c;
    c.decodeBaseMs = o.decodeStepBaseMs;
    c.decodePerRequestMs = o.decodeStepPerReqMs;
    c.prefillBaseMs = o.prefillStepBaseMs;
    c.prefillPerTokenMs = o.prefillStepPerTokenMs;
    return c;
}

/// 8 hex digits, new for every process: a restarted engine is another agent.
std::string newInstanceId()
{
    std::random_device device;
    char text[9];
    std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(device()));
    return text;
}

} // namespace

EngineService::EngineService(const SimOptions &options)
    : m_options(options), m_instanceId(newInstanceId()),
      m_model(StepModel::fromEnvironment(constantsOf(options))),
      m_metrics(options.servedModelName, engineType()), m_pd(options.dp),
      m_peers(options.transferBackend,
              options.role == SimOptions::Role::Prefill ? "decode" : "prefill"),
      m_server(serverSettings(options, "main", engineThreads(options)))
{
    if (m_options.role == SimOptions::Role::Prefill) {
        m_registry = std::make_unique<KvRegistry>(m_options.dp);
        HttpServer::Settings settings =
            serverSettings(m_options, "bootstrap", engineThreads(m_options));
        m_bootstrap = std::make_unique<BootstrapServer>(
            *m_registry, m_peers, settings, m_options.transferBackend, m_options.dp, m_instanceId);
    }
    Scheduler::Limits limits;
    limits.maxRunning = m_options.maxRunningRequests;
    limits.chunkedPrefillSize = m_options.chunkedPrefillSize;
    limits.maxTotalTokens = m_options.maxTotalTokens;
    limits.logIntervalS = m_options.logIntervalS;
    limits.decodeLogInterval = m_options.decodeLogInterval;
    limits.stuck = m_options.faultSchedulerStuck;
    for (int rank = 0; rank < m_options.dp; ++rank) {
        const std::string tag = m_options.dp > 1 ? "[DP" + std::to_string(rank) + "] " : "";
        m_schedulers.push_back(std::make_unique<Scheduler>(rank, m_model, limits, m_metrics, tag));
        // The PD queue gauges are written with the scheduler's (same log call in SGLang).
        m_schedulers.back()->setGaugeHook([this](RankStats &stats) { addPdQueues(stats); });
    }
    m_chat = std::make_unique<ChatHandler>(
        m_options, m_schedulers, m_registry.get(), m_pd, [this] { return ready(); },
        m_options.role == SimOptions::Role::Decode ? &m_peers : nullptr, m_instanceId);
    addRoutes();
}

EngineService::~EngineService()
{
    stop();
}

std::string EngineService::engineType() const
{
    switch (m_options.role) {
    case SimOptions::Role::Prefill:
        return "prefill";
    case SimOptions::Role::Decode:
        return "decode";
    default:
        return "unified";
    }
}

std::string EngineService::disaggregationMode() const
{
    const std::string type = engineType();
    return type == "unified" ? "null" : type;
}

bool EngineService::ready() const
{
    return std::chrono::steady_clock::now() >= m_readyAt;
}

bool EngineService::start(std::string &error)
{
    m_readyAt = std::chrono::steady_clock::now() +
                std::chrono::milliseconds(static_cast<long>(m_options.readyDelayS * 1000));
    // Bind everything before logging anything, so a busy port fails cleanly
    // and the first "listening on" line is the main server's.
    if (!m_server.bindTo(m_options.host, m_options.port, error))
        return false;
    if (m_bootstrap && !m_bootstrap->start(m_options.host, m_options.bootstrapPort, error))
        return false;
    m_chat->setAddress(m_options.host + ":" + std::to_string(m_server.boundPort()));
    for (const auto &scheduler : m_schedulers)
        scheduler->start();
    m_server.start();
    m_started = true;
    Logger::info("listening on " + m_server.scheme() + "://" + m_options.host + ":" +
                 std::to_string(m_server.boundPort()));
    if (m_bootstrap)
        Logger::info("disaggregation bootstrap server on http://" + m_options.host + ":" +
                     std::to_string(m_bootstrap->port()) + " (transfer backend " +
                     m_options.transferBackend + ")");
    if (m_options.role == SimOptions::Role::Prefill || m_options.role == SimOptions::Role::Decode)
        Logger::info("KV transfer agent: " + m_options.transferBackend + " instance " +
                     m_instanceId);
    Logger::info("role " + SimOptions::roleName(m_options.role) + ", served model " +
                 m_options.servedModelName + ", dp " + std::to_string(m_options.dp) +
                 ", max-running-requests " + std::to_string(m_options.maxRunningRequests) +
                 ", chunked-prefill-size " + std::to_string(m_options.chunkedPrefillSize));
    for (const std::string &line : m_model.describe())
        Logger::info(line);
    // Like a real serve script's process, show the SGLANG_* knobs it was
    // started with: drift checks compare them with the script.
    for (char **entry = environ; entry && *entry; ++entry) {
        if (std::string_view(*entry).rfind("SGLANG_", 0) == 0)
            Logger::info(std::string("env ") + *entry);
    }
    m_readyAnnouncer = std::thread([this] {
        const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
            m_readyAt - std::chrono::steady_clock::now());
        if (ShutdownFlag::sleepFor(std::max(wait, std::chrono::milliseconds(0))))
            Logger::info("The server is fired up and ready to roll!");
    });
    return true;
}

void EngineService::stop()
{
    if (!m_started)
        return;
    m_started = false;
    // Release every blocked handler first (their requests abort), then the servers.
    for (const auto &scheduler : m_schedulers)
        scheduler->stop();
    if (m_bootstrap)
        m_bootstrap->stop();
    m_server.shutdown();
    if (m_readyAnnouncer.joinable())
        m_readyAnnouncer.join();
}

void EngineService::addPdQueues(RankStats &stats) const
{
    const PdCounters::Rank &pd = m_pd.rank(stats.dpRank);
    stats.decodePrealloc = pd.decodePrealloc;
    stats.decodeTransfer = pd.decodeTransfer;
    if (m_registry)
        m_registry->counts(stats.dpRank, stats.prefillPrealloc, stats.prefillInflight);
}

std::vector<RankStats> EngineService::rankStats() const
{
    std::vector<RankStats> ranks;
    for (const auto &scheduler : m_schedulers) {
        RankStats stats = scheduler->snapshot();
        addPdQueues(stats);
        const PdCounters::Rank &pd = m_pd.rank(stats.dpRank);
        stats.bootstrapFailed = pd.bootstrapFailed;
        stats.transferFailed = pd.transferFailed;
        stats.kvTransferLatencyMs = pd.lastKvLatencyMs;
        ranks.push_back(stats);
    }
    return ranks;
}

std::vector<RankStats> EngineService::metricsRankStats() const
{
    std::vector<RankStats> ranks;
    for (const auto &scheduler : m_schedulers) {
        RankStats stats = scheduler->publishedSnapshot();
        const PdCounters::Rank &pd = m_pd.rank(stats.dpRank);
        stats.bootstrapFailed = pd.bootstrapFailed; // counters are never cached
        stats.transferFailed = pd.transferFailed;
        stats.kvTransferLatencyMs = pd.lastKvLatencyMs;
        ranks.push_back(stats);
    }
    return ranks;
}

void EngineService::addRoutes()
{
    auto health = [this](const httplib::Request &, httplib::Response &res) {
        if (ready()) {
            res.status = 200;
            res.set_content("", "text/plain");
        } else {
            res.status = 503;
            res.set_content("server is starting", "text/plain");
        }
    };
    m_server.Get("/health", health);
    m_server.Get("/health_generate", health);
    auto info = [this](const httplib::Request &, httplib::Response &res) {
        res.set_content(serverInfo(), "application/json");
    };
    m_server.Get("/server_info", info);
    m_server.Get("/get_server_info", info);
    m_server.Get("/v1/models", [this](const httplib::Request &, httplib::Response &res) {
        res.set_content(models(), "application/json");
    });
    m_server.Get("/v1/loads", [this](const httplib::Request &req, httplib::Response &res) {
        res.set_content(loads(req), "application/json");
    });
    m_server.Get("/metrics", [this](const httplib::Request &, httplib::Response &res) {
        res.set_content(m_metrics.render(metricsRankStats()),
                        "text/plain; version=0.0.4; charset=utf-8");
    });
    m_server.Post(
        "/v1/chat/completions",
        [this](const httplib::Request &req, httplib::Response &res) { m_chat->handle(req, res); });
}

} // namespace opsdeck::sim
