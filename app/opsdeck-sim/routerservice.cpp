#include "routerservice.h"

#include "chatresponder.h"
#include "logger.h"
#include "serversettings.h"
#include "simjson.h"

#include <chrono>
#include <set>

namespace opsdeck::sim {

namespace {

UpstreamPool::Settings upstreamSettings(const SimOptions &o)
{
    UpstreamPool::Settings s;
    s.readTimeout = std::chrono::seconds(o.upstreamTimeoutS);
    return s;
}

// The router admits whatever its clients send (the traffic generator caps at
// 256); two workers per client connection and a margin.
int routerThreads(const SimOptions &o)
{
    return o.threads > 0 ? o.threads : 2 * 256 + 32;
}

} // namespace

RouterService::RouterService(const SimOptions &options)
    : m_options(options), m_workers(options, upstreamSettings(options)), m_workerApi(m_workers),
      m_router(m_workers, m_metrics), m_fault(options.faultStallS, options.faultAfter),
      m_server(serverSettings(options, "main", routerThreads(options))),
      m_metricsServer(serverSettings(options, "metrics", 16))
{
    addRoutes();
}

RouterService::~RouterService()
{
    stop();
}

bool RouterService::start(std::string &error)
{
    if (!m_workers.valid(error))
        return false;
    if (!m_server.bindTo(m_options.host, m_options.port, error))
        return false;
    if (!m_metricsServer.bindTo(m_options.host, m_options.metricsPort, error))
        return false;
    m_workers.start();
    m_server.start();
    m_metricsServer.start();
    m_started = true;
    Logger::info("listening on http://" + m_options.host + ":" +
                 std::to_string(m_server.boundPort()));
    Logger::info("metrics listening on http://" + m_options.host + ":" +
                 std::to_string(m_metricsServer.boundPort()));
    for (const auto &worker : m_workers.workers()) {
        std::string line =
            std::string("worker ") + WorkerPool::typeName(worker->type) + " " + worker->url;
        if (worker->type == WorkerPool::Type::Prefill)
            line += worker->bootstrapPort > 0
                        ? " bootstrap port " + std::to_string(worker->bootstrapPort.load())
                        : " bootstrap port from its /server_info";
        Logger::info(line);
    }
    Logger::info(m_fault.describe());
    return true;
}

void RouterService::stop()
{
    if (!m_started)
        return;
    m_started = false;
    m_workers.stop();
    m_server.shutdown();
    m_metricsServer.shutdown();
}

void RouterService::addRoutes()
{
    m_server.set_pre_routing_handler([this](const httplib::Request &, httplib::Response &) {
        m_fault.apply();
        return httplib::Server::HandlerResponse::Unhandled;
    });
    m_server.Get("/health", [](const httplib::Request &, httplib::Response &res) {
        res.set_content(R"({"status":"ok"})", "application/json");
    });
    m_server.Get("/readiness", [this](const httplib::Request &, httplib::Response &res) {
        const int prefills = m_workers.healthyCount(WorkerPool::Type::Prefill);
        const int decodes = m_workers.healthyCount(WorkerPool::Type::Decode);
        const bool ready = prefills > 0 && decodes > 0;
        Json readiness{{"status", ready ? "ready" : "not_ready"},
                       {"healthy_workers", prefills + decodes},
                       {"total_workers", static_cast<std::int64_t>(m_workers.workers().size())},
                       {"healthy_prefill_workers", prefills},
                       {"healthy_decode_workers", decodes}};
        if (!ready) {
            const auto missing =
                prefills == 0 ? WorkerPool::Type::Prefill : WorkerPool::Type::Decode;
            std::string reason =
                std::string("no healthy ") + WorkerPool::typeName(missing) + " worker";
            // A failed worker stays out even when it answers again: say how it comes back.
            if (const int failed = m_workers.failedCount(missing); failed > 0)
                reason += " (" + std::to_string(failed) +
                          " failed for good: remove and add it again through /workers)";
            readiness["reason"] = reason;
        }
        res.status = ready ? 200 : 503;
        res.set_content(dumped(readiness), "application/json");
    });
    m_workerApi.addRoutes(m_server);
    m_server.Get("/v1/models", [this](const httplib::Request &, httplib::Response &res) {
        const std::string models = modelsJson();
        if (models.empty()) {
            res.status = 503;
            res.set_content(ChatResponder::errorBody("No healthy worker reported a model yet",
                                                     "ServiceUnavailableError", 503),
                            "application/json");
            return;
        }
        res.set_content(models, "application/json");
    });
    m_server.Post(
        "/v1/chat/completions",
        [this](const httplib::Request &req, httplib::Response &res) { m_router.handle(req, res); });
    m_metricsServer.Get("/metrics", [this](const httplib::Request &, httplib::Response &res) {
        res.set_content(m_metrics.render(m_workers), "text/plain; version=0.0.4");
    });
}

std::string RouterService::modelsJson() const
{
    std::set<std::string> models;
    for (const auto &worker : m_workers.workers()) {
        if (worker->healthy && worker->modelId() != "unknown")
            models.insert(worker->modelId());
    }
    if (models.empty())
        return {};
    const auto created = std::chrono::duration_cast<std::chrono::seconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
    Json data = Json::array();
    for (const std::string &model : models)
        data.push_back(
            {{"id", model}, {"object", "model"}, {"created", created}, {"owned_by", "sglang"}});
    return dumped(Json{{"object", "list"}, {"data", data}});
}

} // namespace opsdeck::sim
