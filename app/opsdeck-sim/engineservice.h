#pragma once

#include "bootstrapserver.h"
#include "chathandler.h"
#include "enginemetrics.h"
#include "httpserver.h"
#include "kvregistry.h"
#include "pdcounters.h"
#include "peeragents.h"
#include "rankstats.h"
#include "scheduler.h"
#include "service.h"
#include "simoptions.h"
#include "stepmodel.h"

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

namespace opsdeck::sim {

/// An SGLang engine: --role prefill, decode or engine (non-PD "unified").
///
/// Endpoints: GET /health, /health_generate (503 until --ready-delay has
/// passed, then 200), /server_info and /get_server_info, /v1/models,
/// /v1/loads, /metrics; POST /v1/chat/completions (ChatHandler). A prefill
/// also runs the bootstrap server (BootstrapServer). One Scheduler thread
/// per dp rank. Each process draws a random instance id at start, its KV
/// transfer agent's, which its PD peers remember (PeerAgents: why a nixl
/// single-side restart hangs). Threads: start/stop on main; handlers on the
/// HTTP pool.
class EngineService : public Service
{
public:
    explicit EngineService(const SimOptions &options);
    ~EngineService() override;

    bool start(std::string &error) override;
    void stop() override;

private:
    void addRoutes();
    bool ready() const;
    /// Live, for /v1/loads and /server_info.
    std::vector<RankStats> rankStats() const;
    /// As /metrics shows them: the scheduler gauges as last written
    /// (Scheduler::publishedSnapshot), the counters live.
    std::vector<RankStats> metricsRankStats() const;
    void addPdQueues(RankStats &stats) const;
    std::string serverInfo() const;
    std::string models() const;
    std::string loads(const httplib::Request &req) const;
    std::string engineType() const;
    std::string disaggregationMode() const;

    const SimOptions m_options;
    const std::string m_instanceId;
    const StepModel m_model;
    EngineMetrics m_metrics;
    PdCounters m_pd;
    PeerAgents m_peers;                           ///< a prefill's decodes, a decode's prefills
    std::unique_ptr<KvRegistry> m_registry;       ///< prefill only
    std::unique_ptr<BootstrapServer> m_bootstrap; ///< prefill only
    std::vector<std::unique_ptr<Scheduler>> m_schedulers;
    std::unique_ptr<ChatHandler> m_chat;
    HttpServer m_server;
    std::chrono::steady_clock::time_point m_readyAt;
    std::thread m_readyAnnouncer;
    bool m_started = false;
};

} // namespace opsdeck::sim
