#include "routermetrics.h"

#include "promwriter.h"
#include "workerpool.h"

namespace opsdeck::sim {

namespace {

const std::vector<double> kDurationBuckets = {0.001, 0.005, 0.01, 0.025, 0.05,  0.1,  0.25,
                                              0.5,   1.0,   2.5,  5.0,   10.0,  15.0, 30.0,
                                              45.0,  60.0,  90.0, 120.0, 180.0, 240.0};

struct FamilyInfo
{
    const char *name;
    const char *type;
    const char *help;
    std::vector<const char *> labels;
};

// Order and texts as in sgl-router's init_metrics().
const std::vector<FamilyInfo> kFamilies = {
    {"sgl_router_requests_total",
     "counter",
     "Total number of requests by route and method",
     {"route"}},
    {"sgl_router_request_duration_seconds",
     "histogram",
     "Request duration in seconds by route",
     {"route"}},
    {"sgl_router_request_errors_total",
     "counter",
     "Total number of request errors by route and error type",
     {"route", "error_type"}},
    {"sgl_router_processed_requests_total",
     "counter",
     "Total requests processed by each worker",
     {"worker"}},
    {"sgl_router_pd_requests_total", "counter", "Total PD requests by route", {"route"}},
    {"sgl_router_pd_prefill_requests_total",
     "counter",
     "Total prefill requests per worker",
     {"worker"}},
    {"sgl_router_pd_decode_requests_total",
     "counter",
     "Total decode requests per worker",
     {"worker"}},
    {"sgl_router_pd_errors_total", "counter", "Total PD errors by error type", {"error_type"}},
    {"sgl_router_pd_prefill_errors_total", "counter", "Total prefill server errors", {"worker"}},
    {"sgl_router_pd_decode_errors_total", "counter", "Total decode server errors", {"worker"}},
    {"sgl_router_pd_request_duration_seconds",
     "histogram",
     "PD request duration by route",
     {"route"}},
};

} // namespace

void RouterMetrics::add(const std::string &family, const Key &key)
{
    std::lock_guard lock(m_mutex);
    m_counters[family][key] += 1;
}

void RouterMetrics::observe(const std::string &family, const Key &key, double seconds)
{
    std::lock_guard lock(m_mutex);
    auto &series = m_histograms[family];
    auto it = series.find(key);
    if (it == series.end())
        it = series.emplace(key, Histogram(kDurationBuckets)).first;
    it->second.observe(seconds);
}

void RouterMetrics::recordRequest(const std::string &route)
{
    add("sgl_router_requests_total", {route});
}

void RouterMetrics::recordDuration(const std::string &route, double seconds)
{
    observe("sgl_router_request_duration_seconds", {route}, seconds);
}

void RouterMetrics::recordRequestError(const std::string &route, const std::string &errorType)
{
    add("sgl_router_request_errors_total", {route, errorType});
}

void RouterMetrics::recordPdRequest(const std::string &route, const std::string &prefill,
                                    const std::string &decode)
{
    add("sgl_router_pd_requests_total", {route});
    add("sgl_router_pd_prefill_requests_total", {prefill});
    add("sgl_router_pd_decode_requests_total", {decode});
    add("sgl_router_processed_requests_total", {prefill});
    add("sgl_router_processed_requests_total", {decode});
}

void RouterMetrics::recordPdDuration(const std::string &route, double seconds)
{
    observe("sgl_router_pd_request_duration_seconds", {route}, seconds);
}

void RouterMetrics::recordPdError(const std::string &errorType)
{
    add("sgl_router_pd_errors_total", {errorType});
}

void RouterMetrics::recordPrefillError(const std::string &worker)
{
    add("sgl_router_pd_prefill_errors_total", {worker});
}

void RouterMetrics::recordDecodeError(const std::string &worker)
{
    add("sgl_router_pd_decode_errors_total", {worker});
}

std::string RouterMetrics::render(const WorkerPool &workers) const
{
    PromWriter out(PromWriter::Style::Rust);
    std::lock_guard lock(m_mutex);
    for (const FamilyInfo &family : kFamilies) {
        auto labels = [&](const Key &key) {
            PromWriter::Labels result;
            for (size_t i = 0; i < key.size() && i < family.labels.size(); ++i)
                result.emplace_back(family.labels[i], key[i]);
            return result;
        };
        if (std::string(family.type) == "histogram") {
            const auto it = m_histograms.find(family.name);
            if (it == m_histograms.end())
                continue; // like the Rust exporter: no family before its first sample
            out.family(family.name, family.type, family.help);
            for (const auto &[key, histogram] : it->second)
                out.histogram(family.name, labels(key), histogram);
        } else {
            const auto it = m_counters.find(family.name);
            if (it == m_counters.end())
                continue;
            out.family(family.name, family.type, family.help);
            for (const auto &[key, value] : it->second)
                out.sample(family.name, labels(key), value);
        }
    }

    int active = 0;
    for (const auto &worker : workers.workers())
        active += worker->healthy ? 1 : 0;
    out.family("sgl_router_active_workers", "gauge", "Number of currently active workers");
    out.sample("sgl_router_active_workers", {}, active);
    out.family("sgl_router_worker_health", "gauge",
               "Worker health status (1=healthy, 0=unhealthy)");
    for (const auto &worker : workers.workers())
        out.sample("sgl_router_worker_health", {{"worker", worker->url}}, worker->healthy ? 1 : 0);
    out.family("sgl_router_running_requests", "gauge", "Number of running requests per worker");
    for (const auto &worker : workers.workers())
        out.sample("sgl_router_running_requests", {{"worker", worker->url}}, worker->running);
    return out.text();
}

} // namespace opsdeck::sim
