#pragma once

#include "httpserver.h"
#include "pdrouter.h"
#include "routermetrics.h"
#include "service.h"
#include "simoptions.h"
#include "stallfault.h"
#include "workerapi.h"
#include "workerpool.h"

namespace opsdeck::sim {

/// The SGLang PD router (--role router).
///
/// Main port: GET /health (liveness, 200 once up), /readiness (200 only when
/// at least one prefill and one decode are healthy, else 503; a worker failed
/// for good is not healthy), the gateway's worker API (WorkerApi: GET, POST
/// /workers, GET, DELETE /workers/ID), /v1/models; POST /v1/chat/completions
/// (PdRouter). --metrics-port: GET
/// /metrics with the sgl_router_* families. Takes the --fault flags
/// (StallFault), applied before any route.
/// Threads: start/stop on main, handlers on the HTTP pools, one health poller.
class RouterService : public Service
{
public:
    explicit RouterService(const SimOptions &options);
    ~RouterService() override;

    bool start(std::string &error) override;
    void stop() override;

private:
    void addRoutes();
    std::string modelsJson() const;

    const SimOptions m_options;
    WorkerPool m_workers;
    WorkerApi m_workerApi;
    RouterMetrics m_metrics;
    PdRouter m_router;
    StallFault m_fault;
    HttpServer m_server;
    HttpServer m_metricsServer;
    bool m_started = false;
};

} // namespace opsdeck::sim
