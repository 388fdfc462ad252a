#pragma once

#include "simjson.h"
#include "workerpool.h"

#include <httplib.h>
#include <string>

namespace opsdeck::sim {

/// The SGLang model gateway's worker management API on the router's main
/// port, in the gateway's shapes (sgl-router protocols/worker_spec.rs and its
/// worker service): a worker's id is its URL.
///
///   GET /workers        WorkerListResponse: {"workers": [WorkerInfo...], "total", "stats"}
///   GET /workers/ID     one WorkerInfo; 404 unknown
///   POST /workers       {"url", "worker_type": "prefill"|"decode", "bootstrap_port"
///                       (prefill only, optional: else read from its /server_info)}:
///                       202 {"status":"accepted","worker_id","url","location","message"}
///                       and a Location header; 400 naming the bad field; 409 when
///                       the URL is registered already
///   DELETE /workers/ID  202 {"status":"accepted","worker_id","url","message"}; 404 unknown
///
/// ID is the URL percent-encoded (http%3A%2F%2F127.0.0.1%3A30001; the plain
/// form works too). Errors are the gateway's {"error": text, "code": CODE}.
/// Unlike the gateway, which queues the job, the change is made before the
/// answer: a GET /workers right after shows it. A duplicate is a 409 here
/// (the gateway answers 202 and fails the job). WorkerInfo adds "status" as
/// the gateway's WorkerStatus: pending, ready, not_ready or failed.
/// Threads: handlers on the router's HTTP pool.
class WorkerApi
{
public:
    explicit WorkerApi(WorkerPool &workers) : m_workers(workers) {}

    void addRoutes(httplib::Server &server);
    /// The body of GET /workers.
    std::string listJson() const;
    static Json workerInfo(const WorkerPool::Worker &worker);

private:
    void getOne(const httplib::Request &req, httplib::Response &res) const;
    void create(const httplib::Request &req, httplib::Response &res);
    void remove(const httplib::Request &req, httplib::Response &res);

    WorkerPool &m_workers;
};

} // namespace opsdeck::sim
