#pragma once

#include "httpserver.h"
#include "service.h"
#include "simoptions.h"
#include "stallfault.h"
#include "upstreampool.h"

#include <memory>

namespace opsdeck::sim {

/// An HTTP/1.1 keep-alive reverse proxy in front of the router (--role
/// proxy --upstream URL): forwards method, path and query, body and
/// end-to-end headers (Authorization, Content-Type, ...) over its own
/// kept-alive upstream connections and streams SSE through as it arrives.
/// With --fault reused-stall=S it is the client-side proxy of the incident.
/// Threads: start/stop on main, handlers on the HTTP pool.
class ProxyService : public Service
{
public:
    explicit ProxyService(const SimOptions &options);
    ~ProxyService() override;

    bool start(std::string &error) override;
    void stop() override;

private:
    void forward(const httplib::Request &req, httplib::Response &res);

    const SimOptions m_options;
    StallFault m_fault;
    std::unique_ptr<UpstreamPool> m_upstream;
    HttpServer m_server;
    bool m_started = false;
};

} // namespace opsdeck::sim
