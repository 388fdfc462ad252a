#include "workerpool.h"

#include "logger.h"
#include "simjson.h"

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

WorkerPool::WorkerPool(const SimOptions &options, UpstreamPool::Settings upstream)
    : m_intervalS(options.healthCheckIntervalS)
{
    auto add = [&](const std::string &url, Type type, int bootstrapPort) {
        const auto address = Url::parse(url);
        if (!address) {
            m_invalid = url;
            return;
        }
        auto worker = std::make_unique<Worker>();
        worker->url = url;
        while (!worker->url.empty() && worker->url.back() == '/')
            worker->url.pop_back();
        worker->address = *address;
        worker->type = type;
        worker->bootstrapPort = bootstrapPort;
        worker->pool = std::make_unique<UpstreamPool>(*address, upstream);
        m_workers.push_back(std::move(worker));
    };
    for (const auto &prefill : options.prefills)
        add(prefill.url, Type::Prefill, prefill.bootstrapPort);
    for (const auto &decode : options.decodes)
        add(decode, Type::Decode, -1);
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
    for (const auto &worker : m_workers) {
        if (worker->type == type && worker->healthy)
            healthy.push_back(worker.get());
    }
    if (healthy.empty())
        return nullptr;
    auto &next = type == Type::Prefill ? m_nextPrefill : m_nextDecode;
    return healthy[next++ % healthy.size()];
}

int WorkerPool::healthyCount(Type type) const
{
    int count = 0;
    for (const auto &worker : m_workers)
        count += worker->type == type && worker->healthy ? 1 : 0;
    return count;
}

void WorkerPool::pollLoop()
{
    // One kept-alive client per worker: the poller is a long-lived client,
    // as the real router's health checker is.
    std::vector<std::unique_ptr<httplib::Client>> clients;
    for (const auto &worker : m_workers) {
        auto client =
            std::make_unique<httplib::Client>(worker->address.host(), worker->address.port());
        client->set_keep_alive(true);
        client->set_tcp_nodelay(true);
        client->set_connection_timeout(std::chrono::seconds(1));
        client->set_read_timeout(std::chrono::seconds(1));
        clients.push_back(std::move(client));
    }
    const auto interval = std::chrono::milliseconds(static_cast<long>(m_intervalS * 1000));
    while (!m_stopping) {
        for (size_t i = 0; i < m_workers.size() && !m_stopping; ++i)
            poll(*m_workers[i], *clients[i]);
        std::unique_lock lock(m_waitMutex);
        m_waitCv.wait_for(lock, interval, [&] { return m_stopping.load(); });
    }
}

void WorkerPool::poll(Worker &worker, httplib::Client &client)
{
    const auto res = client.Get(worker.address.path() + "/health");
    const bool ok = res && res->status == 200;
    worker.failures = ok ? 0 : worker.failures + 1;
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
    if (healthy != worker.healthy) {
        worker.healthy = healthy;
        Logger::info(std::string(typeName(worker.type)) + " worker " + worker.url + " is " +
                     (healthy ? "healthy" : "unhealthy"));
    }
}

} // namespace opsdeck::sim
