#pragma once

#include "simoptions.h"
#include "upstreampool.h"
#include "url.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace opsdeck::sim {

/// The router's prefill and decode workers and their health.
///
/// A background thread polls every worker's GET /health each
/// --health-check-interval (1 s timeout): one 200 makes a worker healthy, two
/// failures in a row unhealthy. Once healthy, the worker's /server_info gives
/// its served model name and, for a prefill given without a bootstrap port,
/// its disaggregation_bootstrap_port. Thread-safe: pick() and the getters run
/// on handler threads.
class WorkerPool
{
public:
    enum class Type
    {
        Prefill,
        Decode
    };

    struct Worker
    {
        std::string url;
        Url address;
        Type type = Type::Decode;
        std::atomic<int> bootstrapPort{-1}; ///< prefill; -1 while unknown
        std::atomic<bool> healthy{false};
        std::atomic<bool> infoKnown{false};
        std::atomic<std::uint64_t> processed{0};
        std::atomic<int> running{0};
        int failures = 0; ///< poller thread only
        std::unique_ptr<UpstreamPool> pool;
        std::string modelId() const;
        void setModelId(const std::string &id);

    private:
        mutable std::mutex m_modelMutex;
        std::string m_modelId = "unknown";
    };

    WorkerPool(const SimOptions &options, UpstreamPool::Settings upstream);
    ~WorkerPool();

    /// False with an error naming the bad URL.
    bool valid(std::string &error) const;
    void start();
    void stop();

    /// Round-robin over the healthy workers of `type`; nullptr when none.
    Worker *pick(Type type);
    const std::vector<std::unique_ptr<Worker>> &workers() const { return m_workers; }
    int healthyCount(Type type) const;
    static const char *typeName(Type type);

private:
    void pollLoop();
    void poll(Worker &worker, httplib::Client &client);

    std::vector<std::unique_ptr<Worker>> m_workers;
    std::string m_invalid;
    const double m_intervalS;
    std::atomic<unsigned> m_nextPrefill{0};
    std::atomic<unsigned> m_nextDecode{0};
    std::thread m_thread;
    std::atomic<bool> m_stopping{false};
    std::mutex m_waitMutex;
    std::condition_variable m_waitCv;
};

} // namespace opsdeck::sim
