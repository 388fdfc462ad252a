#include "workerapi.h"

#include "logger.h"

#include <set>

namespace opsdeck::sim {

namespace {

constexpr const char *kWorkerPath = R"(/workers/(.+))";

void sendError(httplib::Response &res, int status, const std::string &code,
               const std::string &message)
{
    res.status = status;
    res.set_content(dumped(Json{{"error", message}, {"code", code}}), "application/json");
}

/// The worker id of a /workers/ID path: httplib decodes the path once; an id
/// that still holds escapes was encoded twice over (or by a client that
/// escapes '%').
std::string idOfPath(const httplib::Request &req)
{
    std::string id = req.matches.size() > 1 ? req.matches[1].str() : std::string();
    if (id.find('%') != std::string::npos)
        id = httplib::detail::decode_url(id, false);
    return WorkerPool::idOf(id);
}

std::string locationOf(const std::string &id)
{
    return "/workers/" + httplib::detail::encode_query_param(id);
}

} // namespace

void WorkerApi::addRoutes(httplib::Server &server)
{
    server.Get("/workers", [this](const httplib::Request &, httplib::Response &res) {
        res.set_content(listJson(), "application/json");
    });
    server.Get(kWorkerPath,
               [this](const httplib::Request &req, httplib::Response &res) { getOne(req, res); });
    server.Post("/workers",
                [this](const httplib::Request &req, httplib::Response &res) { create(req, res); });
    server.Delete(kWorkerPath, [this](const httplib::Request &req, httplib::Response &res) {
        remove(req, res);
    });
}

Json WorkerApi::workerInfo(const WorkerPool::Worker &worker)
{
    const bool isPrefill = worker.type == WorkerPool::Type::Prefill;
    return {{"id", worker.url},
            {"url", worker.url},
            {"model_id", worker.modelId()},
            {"priority", 50},
            {"cost", 1.0},
            {"worker_type", WorkerPool::typeName(worker.type)},
            {"is_healthy", worker.healthy.load()},
            {"status", worker.status()},
            {"load", worker.running.load()},
            {"connection_mode", "Http"},
            {"bootstrap_port", isPrefill && worker.bootstrapPort > 0
                                   ? Json(worker.bootstrapPort.load())
                                   : Json(nullptr)},
            {"processed_requests", worker.processed.load()}};
}

std::string WorkerApi::listJson() const
{
    // Shape of the SGLang model gateway's GET /workers (WorkerListResponse).
    Json list = Json::array();
    int healthy = 0, prefills = 0, decodes = 0, load = 0;
    std::set<std::string> models;
    const auto workers = m_workers.workers();
    for (const WorkerPool::Worker *worker : workers) {
        list.push_back(workerInfo(*worker));
        healthy += worker->healthy ? 1 : 0;
        (worker->type == WorkerPool::Type::Prefill ? prefills : decodes) += 1;
        load += worker->running;
        models.insert(worker->modelId());
    }
    const auto total = static_cast<std::int64_t>(workers.size());
    const Json stats{{"total_workers", total},
                     {"healthy_workers", healthy},
                     {"total_models", static_cast<std::int64_t>(models.size())},
                     {"total_load", load},
                     {"by_type", {{"regular", 0}, {"prefill", prefills}, {"decode", decodes}}}};
    return dumped(Json{{"workers", list}, {"total", total}, {"stats", stats}});
}

void WorkerApi::getOne(const httplib::Request &req, httplib::Response &res) const
{
    const std::string id = idOfPath(req);
    const WorkerPool::Worker *worker = m_workers.find(id);
    if (!worker)
        return sendError(res, 404, "WORKER_NOT_FOUND", "Worker " + id + " not found");
    res.set_content(dumped(workerInfo(*worker)), "application/json");
}

void WorkerApi::create(const httplib::Request &req, httplib::Response &res)
{
    std::string parseError;
    const auto body = parsedJson(req.body, &parseError);
    if (!body || !body->is_object())
        return sendError(res, 400, "BAD_REQUEST",
                         "Invalid JSON body: expected an object with \"url\" and \"worker_type\"" +
                             (parseError.empty() ? std::string() : " (" + parseError + ")"));
    const std::string *url = stringMember(*body, "url");
    if (!url || url->empty())
        return sendError(res, 400, "BAD_REQUEST", "Field \"url\" is required: a worker URL string");
    if (!Url::parse(*url))
        return sendError(res, 400, "BAD_REQUEST",
                         "Field \"url\": invalid worker URL '" + *url +
                             "' (expected http://HOST:PORT)");
    const std::string *typeText = stringMember(*body, "worker_type");
    if (!typeText || (*typeText != "prefill" && *typeText != "decode"))
        return sendError(res, 400, "BAD_REQUEST",
                         "Field \"worker_type\" must be \"prefill\" or \"decode\" (this router "
                         "runs prefill/decode disaggregation)");
    const auto type = *typeText == "prefill" ? WorkerPool::Type::Prefill : WorkerPool::Type::Decode;
    int bootstrapPort = -1;
    if (const Json *port = memberOf(*body, "bootstrap_port"); port && !port->is_null()) {
        if (type != WorkerPool::Type::Prefill)
            return sendError(res, 400, "BAD_REQUEST",
                             "Field \"bootstrap_port\" is only for prefill workers");
        if (!port->is_number_integer() || port->get<std::int64_t>() < 1 ||
            port->get<std::int64_t>() > 65535)
            return sendError(res, 400, "BAD_REQUEST",
                             "Field \"bootstrap_port\" must be an integer in [1, 65535]");
        bootstrapPort = port->get<int>();
    }
    const std::string id = WorkerPool::idOf(*url);
    if (m_workers.add(*url, type, bootstrapPort) == WorkerPool::AddResult::Duplicate)
        return sendError(res, 409, "WORKER_ALREADY_EXISTS", "Worker " + id + " already exists");
    Logger::info(std::string("worker ") + *typeText + " " + id + " added through the API" +
                 (bootstrapPort > 0 ? " (bootstrap port " + std::to_string(bootstrapPort) + ")"
                                    : std::string()));
    const std::string location = locationOf(id);
    res.status = 202;
    res.set_header("Location", location);
    res.set_content(dumped(Json{{"status", "accepted"},
                                {"worker_id", id},
                                {"url", id},
                                {"location", location},
                                {"message", "Worker addition queued for background processing"}}),
                    "application/json");
}

void WorkerApi::remove(const httplib::Request &req, httplib::Response &res)
{
    const std::string id = idOfPath(req);
    const WorkerPool::Worker *worker = m_workers.find(id);
    const std::string type = worker ? WorkerPool::typeName(worker->type) : "";
    if (!worker || !m_workers.remove(id))
        return sendError(res, 404, "WORKER_NOT_FOUND", "Worker " + id + " not found");
    Logger::info("worker " + type + " " + id + " removed through the API");
    res.status = 202;
    res.set_content(dumped(Json{{"status", "accepted"},
                                {"worker_id", id},
                                {"url", id},
                                {"message", "Worker removal queued for background processing"}}),
                    "application/json");
}

} // namespace opsdeck::sim
