#include "proxyservice.h"

#include "logger.h"
#include "responserelay.h"
#include "serversettings.h"
#include "upstreamcall.h"
#include "url.h"

namespace opsdeck::sim {

namespace {

// Like the router: up to 256 client connections (the traffic generator's
// cap), two workers each, and a margin.
HttpServer::Settings proxySettings(const SimOptions &o)
{
    return serverSettings(o, "proxy", o.threads > 0 ? o.threads : 2 * 256 + 32);
}

} // namespace

ProxyService::ProxyService(const SimOptions &options)
    : m_options(options), m_fault(options.faultStallS, options.faultAfter),
      m_server(proxySettings(options))
{
    if (const auto url = Url::parse(options.upstream)) {
        UpstreamPool::Settings settings;
        settings.readTimeout = std::chrono::seconds(options.upstreamTimeoutS);
        m_upstream = std::make_unique<UpstreamPool>(*url, settings);
    }
    m_server.set_pre_routing_handler([this](const httplib::Request &, httplib::Response &) {
        m_fault.apply();
        return httplib::Server::HandlerResponse::Unhandled;
    });
    auto handler = [this](const httplib::Request &req, httplib::Response &res) {
        forward(req, res);
    };
    m_server.Get(".*", handler);
    m_server.Post(".*", handler);
    m_server.Put(".*", handler);
    m_server.Patch(".*", handler);
    m_server.Delete(".*", handler);
    m_server.Options(".*", handler);
}

ProxyService::~ProxyService()
{
    stop();
}

bool ProxyService::start(std::string &error)
{
    if (!m_upstream) {
        error = "invalid --upstream '" + m_options.upstream + "' (expected http://HOST:PORT)";
        return false;
    }
    if (!m_server.bindTo(m_options.host, m_options.port, error))
        return false;
    m_server.start();
    m_started = true;
    Logger::info("listening on http://" + m_options.host + ":" +
                 std::to_string(m_server.boundPort()));
    Logger::info("forwarding to " + m_upstream->upstream().origin() +
                 m_upstream->upstream().path());
    Logger::info(m_fault.describe());
    return true;
}

void ProxyService::stop()
{
    if (!m_started)
        return;
    m_started = false;
    m_server.shutdown();
}

void ProxyService::forward(const httplib::Request &req, httplib::Response &res)
{
    UpstreamCall::Request upstream;
    upstream.method = req.method;
    upstream.path = m_upstream->upstream().path() + (req.target.empty() ? req.path : req.target);
    upstream.headers = ResponseRelay::requestHeaders(req.headers);
    upstream.body = req.body;
    auto call = std::make_shared<UpstreamCall>(*m_upstream, std::move(upstream));
    ResponseRelay::relay(call, res, [](int, bool) {});
}

} // namespace opsdeck::sim
