#pragma once

#include "histogram.h"

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace opsdeck::sim {

class WorkerPool;

/// The router's Prometheus metrics, named as sgl-project/sglang
/// sgl-router/src/metrics.rs defines them (sgl_router_* families, labels
/// route / worker / error_type, duration buckets 0.001 .. 240 s), written in
/// the Rust exporter's style. Worker gauges (sgl_router_active_workers,
/// sgl_router_worker_health, sgl_router_running_requests) are read from the
/// WorkerPool at render time. Thread-safe.
class RouterMetrics
{
public:
    void recordRequest(const std::string &route);
    void recordDuration(const std::string &route, double seconds);
    void recordRequestError(const std::string &route, const std::string &errorType);
    void recordPdRequest(const std::string &route, const std::string &prefill,
                         const std::string &decode);
    void recordPdDuration(const std::string &route, double seconds);
    void recordPdError(const std::string &errorType);
    void recordPrefillError(const std::string &worker);
    void recordDecodeError(const std::string &worker);

    std::string render(const WorkerPool &workers) const;

private:
    using Key = std::vector<std::string>; // label values in family order
    void add(const std::string &family, const Key &key);
    void observe(const std::string &family, const Key &key, double seconds);

    mutable std::mutex m_mutex;
    std::map<std::string, std::map<Key, double>> m_counters;
    std::map<std::string, std::map<Key, Histogram>> m_histograms;
};

} // namespace opsdeck::sim
