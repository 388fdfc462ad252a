#include "bootstrapserver.h"

#include "kvregistry.h"
#include "peeragents.h"
#include "simjson.h"

#include <algorithm>
#include <charconv>

namespace opsdeck::sim {

namespace {

bool roomParam(const httplib::Request &req, std::uint64_t &room)
{
    const std::string text = req.get_param_value("bootstrap_room");
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), room);
    return ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
}

} // namespace

BootstrapServer::BootstrapServer(KvRegistry &registry, PeerAgents &decodes,
                                 HttpServer::Settings settings, std::string transferBackend,
                                 int dpSize, std::string instanceId)
    : m_registry(registry), m_decodes(decodes), m_server(std::move(settings)),
      m_transferBackend(std::move(transferBackend)), m_dpSize(dpSize),
      m_instanceId(std::move(instanceId))
{
    m_server.Get("/health", [](const httplib::Request &, httplib::Response &res) {
        res.set_content("OK", "text/plain");
    });
    m_server.Get("/route", [this](const httplib::Request &req, httplib::Response &res) {
        std::uint64_t room = 0;
        const bool hasRoom = roomParam(req, room);
        const bool known = hasRoom && m_registry.handshake(room);
        const std::string decodeAddr = req.get_param_value("decode_addr");
        if (hasRoom && !decodeAddr.empty() &&
            m_decodes.check(decodeAddr, req.get_param_value("decode_instance")) ==
                PeerAgents::Verdict::Stale)
            m_registry.markStale(room);
        const Json route{{"rank_ip", m_host},
                         {"rank_port", m_server.boundPort()},
                         {"transfer_backend", m_transferBackend},
                         {"dp_size", m_dpSize},
                         {"instance_id", m_instanceId},
                         {"room_known", known}};
        res.set_content(dumped(route), "application/json");
    });
    m_server.Get("/kv", [this](const httplib::Request &req, httplib::Response &res) {
        std::uint64_t room = 0;
        if (!roomParam(req, room)) {
            res.status = 400;
            res.set_content(R"({"status":"bad_request"})", "application/json");
            return;
        }
        int waitMs = std::atoi(req.get_param_value("wait_ms").c_str());
        waitMs = std::clamp(waitMs, 0, 5000);
        int promptTokens = 0;
        const auto status =
            m_registry.waitFor(room, std::chrono::milliseconds(waitMs), promptTokens);
        Json answer{{"bootstrap_room", std::to_string(room)}};
        switch (status) {
        case KvRegistry::Status::Ready:
            if (const std::string addr = req.get_param_value("decode_addr"); !addr.empty())
                m_decodes.remember(addr, req.get_param_value("decode_instance"));
            answer["status"] = "ready";
            answer["prompt_tokens"] = promptTokens;
            res.status = 200;
            break;
        case KvRegistry::Status::Pending:
            answer["status"] = "pending";
            res.status = 202;
            break;
        case KvRegistry::Status::Unknown:
            answer["status"] = "unknown";
            res.status = 404;
            break;
        case KvRegistry::Status::Failed:
            answer["status"] = "failed";
            res.status = 410;
            break;
        }
        res.set_content(dumped(answer), "application/json");
    });
}

BootstrapServer::~BootstrapServer()
{
    stop();
}

bool BootstrapServer::start(const std::string &host, int port, std::string &error)
{
    m_host = host;
    if (!m_server.bindTo(host, port, error))
        return false;
    m_server.start();
    return true;
}

void BootstrapServer::stop()
{
    m_registry.stop();
    m_server.shutdown();
}

} // namespace opsdeck::sim
