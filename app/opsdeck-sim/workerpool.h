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
/// its disaggregation_bootstrap_port. With --worker-failed-after N, a worker
/// that was healthy once and then fails N checks in a row is failed for good,
/// as the gateway marks it: never healthy again, whatever its /health says,
/// until it is removed and added again (remove() then add(), the router's
/// DELETE and POST /workers).
///
/// Workers come from the command line and from add(); remove() takes one out
/// of routing and of workers(). A removed Worker is kept alive (retired) for
/// the pool's lifetime, so requests still running on it, and the poller, may
/// hold its pointer: a handful of API calls cost a few objects, never a
/// dangling pointer. Thread-safe: pick(), add(), remove() and the getters run
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
        std::atomic<bool> everHealthy{false};
        std::atomic<bool> failed{false}; ///< for good (--worker-failed-after)
        std::atomic<bool> infoKnown{false};
        std::atomic<std::uint64_t> processed{0};
        std::atomic<int> running{0};
        int failures = 0; ///< poller thread only
        std::unique_ptr<UpstreamPool> pool;
        std::unique_ptr<httplib::Client> healthClient; ///< poller thread only
        std::string modelId() const;
        void setModelId(const std::string &id);
        /// As the gateway's WorkerStatus: "pending" (not healthy yet), "ready",
        /// "not_ready" (unhealthy after being healthy) or "failed" (for good).
        const char *status() const;

    private:
        mutable std::mutex m_modelMutex;
        std::string m_modelId = "unknown";
    };

    enum class AddResult
    {
        Added,
        InvalidUrl,
        Duplicate ///< a worker with that URL (its id) is already registered
    };

    WorkerPool(const SimOptions &options, UpstreamPool::Settings upstream);
    ~WorkerPool();

    /// False with an error naming the bad URL (of the command line).
    bool valid(std::string &error) const;
    void start();
    void stop();

    /// Registers a worker (health-polled like the others from the next round).
    /// `url` loses trailing slashes; it is the worker's id. `bootstrapPort`
    /// -1: learn it from the prefill's /server_info.
    AddResult add(const std::string &url, Type type, int bootstrapPort);
    /// Takes the worker whose id (URL) is `id` out of routing and workers();
    /// false when there is none.
    bool remove(const std::string &id);
    /// The registered worker with id `id`, or nullptr.
    Worker *find(const std::string &id) const;

    /// Round-robin over the healthy workers of `type`; nullptr when none.
    Worker *pick(Type type);
    /// The registered workers, in registration order (a copy: the set may change).
    std::vector<Worker *> workers() const;
    int healthyCount(Type type) const;
    int failedCount(Type type) const;
    static const char *typeName(Type type);
    /// `url` without trailing slashes: a worker's id.
    static std::string idOf(std::string url);

private:
    void pollLoop();
    void poll(Worker &worker);

    const UpstreamPool::Settings m_upstream;
    const double m_intervalS;
    const int m_failedAfter; ///< 0: never failed for good
    mutable std::mutex m_workersMutex;
    std::vector<std::unique_ptr<Worker>> m_workers;
    std::vector<std::unique_ptr<Worker>> m_retired; ///< removed; see the class comment
    std::string m_invalid;
    std::atomic<unsigned> m_nextPrefill{0};
    std::atomic<unsigned> m_nextDecode{0};
    std::thread m_thread;
    std::atomic<bool> m_stopping{false};
    std::mutex m_waitMutex;
    std::condition_variable m_waitCv;
};

} // namespace opsdeck::sim
