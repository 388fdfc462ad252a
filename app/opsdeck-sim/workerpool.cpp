#include "workerpool.h"

#include "logger.h"
#include "simjson.h"

#include <algorithm>

namespace opsdeck::sim {

std::string WorkerPool::Worker::modelId() const
{
    std::lock_guard lock(m_modelMutex);
    return m_modelId;
}

void WorkerPool::Worker::setModelId(const std::string &id)
{
    std::lock_guard lock(m_modelMutex);
    m_modelId = id;
}

const char *WorkerPool::Worker::status() const
{
    if (failed)
        return "failed";
    if (healthy)
        return "ready";
    return everHealthy ? "not_ready" : "pending";
}

WorkerPool::WorkerPool(const SimOptions &options, UpstreamPool::Settings upstream)
    : m_upstream(upstream), m_intervalS(options.healthCheckIntervalS),
      m_failedAfter(options.workerFailedAfter)
{
    auto addGiven = [this](const std::string &url, Type type, int bootstrapPort) {
        const AddResult result = add(url, type, bootstrapPort);
        if (result == AddResult::InvalidUrl)
            m_invalid = url;
        else if (result == AddResult::Duplicate)
            Logger::warn("worker " + idOf(url) + " given twice: registered once");
    };
    for (const auto &prefill : options.prefills)
        addGiven(prefill.url, Type::Prefill, prefill.bootstrapPort);
    for (const auto &decode : options.decodes)
        addGiven(decode, Type::Decode, -1);
}

WorkerPool::~WorkerPool()
{
    stop();
}

bool WorkerPool::valid(std::string &error) const
{
    if (m_invalid.empty())
        return true;
    error = "invalid worker URL '" + m_invalid + "' (expected http://HOST:PORT)";
    return false;
}

const char *WorkerPool::typeName(Type type)
{
    return type == Type::Prefill ? "prefill" : "decode";
}

std::string WorkerPool::idOf(std::string url)
{
    while (!url.empty() && url.back() == '/')
        url.pop_back();
    return url;
}

WorkerPool::AddResult WorkerPool::add(const std::string &url, Type type, int bootstrapPort)
{
    const auto address = Url::parse(url);
    if (!address)
        return AddResult::InvalidUrl;
    auto worker = std::make_unique<Worker>();
    worker->url = idOf(url);
    worker->address = *address;
    worker->type = type;
    worker->bootstrapPort = bootstrapPort;
    worker->pool = std::make_unique<UpstreamPool>(*address, m_upstream);
    // One kept-alive client per worker: the poller is a long-lived client,
    // as the real router's health checker is.
    worker->healthClient = std::make_unique<httplib::Client>(address->host(), address->port());
    worker->healthClient->set_keep_alive(true);
    worker->healthClient->set_tcp_nodelay(true);
    worker->healthClient->set_connection_timeout(std::chrono::seconds(1));
    worker->healthClient->set_read_timeout(std::chrono::seconds(1));
    std::lock_guard lock(m_workersMutex);
    for (const auto &existing : m_workers) {
        if (existing->url == worker->url)
            return AddResult::Duplicate;
    }
    m_workers.push_back(std::move(worker));
    return AddResult::Added;
}

bool WorkerPool::remove(const std::string &id)
{
    std::lock_guard lock(m_workersMutex);
    const auto it = std::find_if(m_workers.begin(), m_workers.end(),
                                 [&](const auto &worker) { return worker->url == idOf(id); });
    if (it == m_workers.end())
        return false;
    (*it)->healthy = false;
    m_retired.push_back(std::move(*it));
    m_workers.erase(it);
    return true;
}

WorkerPool::Worker *WorkerPool::find(const std::string &id) const
{
    std::lock_guard lock(m_workersMutex);
    for (const auto &worker : m_workers) {
        if (worker->url == idOf(id))
            return worker.get();
    }
    return nullptr;
}

std::vector<WorkerPool::Worker *> WorkerPool::workers() const
{
    std::lock_guard lock(m_workersMutex);
    std::vector<Worker *> all;
    for (const auto &worker : m_workers)
        all.push_back(worker.get());
    return all;
}

void WorkerPool::start()
{
    m_thread = std::thread([this] { pollLoop(); });
}

void WorkerPool::stop()
{
    {
        std::lock_guard lock(m_waitMutex);
        m_stopping = true;
    }
    m_waitCv.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

WorkerPool::Worker *WorkerPool::pick(Type type)
{
    std::vector<Worker *> healthy;
    for (Worker *worker : workers()) {
        if (worker->type == type && worker->healthy)
            healthy.push_back(worker);
    }
    if (healthy.empty())
        return nullptr;
    auto &next = type == Type::Prefill ? m_nextPrefill : m_nextDecode;
    return healthy[next++ % healthy.size()];
}

int WorkerPool::healthyCount(Type type) const
{
    int count = 0;
    for (const Worker *worker : workers())
        count += worker->type == type && worker->healthy ? 1 : 0;
    return count;
}

int WorkerPool::failedCount(Type type) const
{
    int count = 0;
    for (const Worker *worker : workers())
        count += worker->type == type && worker->failed ? 1 : 0;
    return count;
}

void WorkerPool::pollLoop()
{
    const auto interval = std::chrono::milliseconds(static_cast<long>(m_intervalS * 1000));
    while (!m_stopping) {
        // A copy: workers added or removed meanwhile count from the next round.
        for (Worker *worker : workers()) {
            if (m_stopping)
                break;
            poll(*worker);
        }
        std::unique_lock lock(m_waitMutex);
        m_waitCv.wait_for(lock, interval, [&] { return m_stopping.load(); });
    }
}

void WorkerPool::poll(Worker &worker)
{
    if (worker.failed)
        return; // for good: only removing and adding it again brings it back
    httplib::Client &client = *worker.healthClient;
    const auto res = client.Get(worker.address.path() + "/health");
    const bool ok = res && res->status == 200;
    worker.failures = ok ? 0 : worker.failures + 1;
    // A worker still starting (never healthy yet) is pending, not failed.
    if (m_failedAfter > 0 && worker.everHealthy && worker.failures >= m_failedAfter) {
        worker.failed = true;
        worker.healthy = false;
        Logger::warn(std::string(typeName(worker.type)) + " worker " + worker.url + " failed " +
                     std::to_string(worker.failures) +
                     " health checks in a row: marked failed until it is removed and added "
                     "again (DELETE and POST /workers)");
        return;
    }
    const bool healthy = ok || (worker.healthy && worker.failures < 2);
    if (healthy && !worker.infoKnown) {
        if (const auto info = client.Get(worker.address.path() + "/server_info");
            info && info->status == 200) {
            if (const auto doc = parsedJson(info->body)) {
                if (const std::string *name = stringMember(*doc, "served_model_name"))
                    worker.setModelId(*name);
                const Json *port = memberOf(*doc, "disaggregation_bootstrap_port");
                if (worker.type == Type::Prefill && worker.bootstrapPort < 0 && port &&
                    port->is_number_integer())
                    worker.bootstrapPort = port->get<int>();
                worker.infoKnown = true;
            }
        }
    }
    if (healthy)
        worker.everHealthy = true;
    if (healthy != worker.healthy) {
        worker.healthy = healthy;
        Logger::info(std::string(typeName(worker.type)) + " worker " + worker.url + " is " +
                     (healthy ? "healthy" : "unhealthy"));
    }
}

} // namespace opsdeck::sim
