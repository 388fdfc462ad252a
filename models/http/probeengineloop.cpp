#include "probeengineloop.h"

#include <algorithm>
#include <spdlog/spdlog.h>

namespace opsdeck::probes {

namespace {

void initCurlOnce()
{
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

} // namespace

ProbeEngine::Loop::Loop(ProbeEngine &engine, Limits limits) : m_engine(engine), m_limits(limits)
{
    initCurlOnce();
    m_multi = curl_multi_init();
    // Room for every kept-alive origin plus a full batch; curl's default cache
    // (4 x transfers) could evict a connection a Reused probe is keeping idle.
    curl_multi_setopt(m_multi, CURLMOPT_MAXCONNECTS, 300L);
    m_thread =
        std::make_unique<threads::WorkerThread>(QStringLiteral("probe-engine"), [this] { run(); });
}

ProbeEngine::Loop::~Loop()
{
    m_stopping = true;
    curl_multi_wakeup(m_multi);
    m_thread->stop();
    curl_multi_cleanup(m_multi);
}

quint64 ProbeEngine::Loop::submit(ProbeRequest request, Callback onDone)
{
    const quint64 id = m_nextId++;
    auto transfer = std::make_unique<CurlTransfer>(id, std::move(request), std::move(onDone));
    bool batched = false;
    {
        std::lock_guard lock(m_mutex);
        m_queue.push_back(std::move(transfer));
        batched = std::find(m_batching.begin(), m_batching.end(), std::this_thread::get_id()) !=
                  m_batching.end();
    }
    if (!batched)
        curl_multi_wakeup(m_multi);
    return id;
}

bool ProbeEngine::Loop::beginBatch()
{
    std::lock_guard lock(m_mutex);
    const auto self = std::this_thread::get_id();
    if (std::find(m_batching.begin(), m_batching.end(), self) != m_batching.end())
        return false;
    m_batching.push_back(self);
    return true;
}

void ProbeEngine::Loop::endBatch()
{
    {
        std::lock_guard lock(m_mutex);
        std::erase(m_batching, std::this_thread::get_id());
    }
    curl_multi_wakeup(m_multi);
}

void ProbeEngine::Loop::cancel(quint64 id)
{
    {
        std::lock_guard lock(m_mutex);
        m_cancelIds.push_back(id);
    }
    curl_multi_wakeup(m_multi);
}

void ProbeEngine::Loop::cancelAll()
{
    {
        std::lock_guard lock(m_mutex);
        m_cancelUpTo = m_nextId - 1;
    }
    curl_multi_wakeup(m_multi);
}

void ProbeEngine::Loop::run()
{
    while (!m_stopping) {
        applyCancels();
        const bool started = startQueued();
        int running = 0;
        curl_multi_perform(m_multi, &running);
        collectFinished();
        if (m_stopping)
            break;
        // Just-started transfers are driven by the next perform; otherwise
        // sleep until a socket, curl's timer or a wakeup (at most 1 s).
        if (!started)
            curl_multi_poll(m_multi, nullptr, 0, 1000, nullptr);
    }
    cancelEverything();
}

bool ProbeEngine::Loop::startQueued()
{
    const int limit = std::clamp(m_limits.maxConcurrent, 1, 256);
    bool started = false;
    while (static_cast<int>(m_active.size()) < limit) {
        std::unique_ptr<CurlTransfer> transfer;
        {
            std::lock_guard lock(m_mutex);
            if (m_queue.empty())
                break;
            transfer = std::move(m_queue.front());
            m_queue.pop_front();
        }
        QString error;
        if (!transfer->setUp(m_limits.maxIdleGapS, error)) {
            ProbeResult result = transfer->cancelledResult();
            result.cancelled = false;
            result.error = error;
            result.note = error;
            complete(std::move(transfer), result);
            continue;
        }
        transfer->markStarted();
        CURL *easy = transfer->handle();
        curl_multi_add_handle(m_multi, easy);
        m_active.emplace(easy, std::move(transfer));
        started = true;
    }
    return started;
}

void ProbeEngine::Loop::applyCancels()
{
    std::vector<quint64> ids;
    quint64 upTo = 0;
    std::vector<std::unique_ptr<CurlTransfer>> queued;
    {
        std::lock_guard lock(m_mutex);
        ids.swap(m_cancelIds);
        upTo = m_cancelUpTo;
        auto doomed = [&](const std::unique_ptr<CurlTransfer> &t) {
            return t->id() <= upTo || std::find(ids.begin(), ids.end(), t->id()) != ids.end();
        };
        for (auto it = m_queue.begin(); it != m_queue.end();) {
            if (doomed(*it)) {
                queued.push_back(std::move(*it));
                it = m_queue.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (auto &transfer : queued) {
        const ProbeResult result = transfer->cancelledResult();
        complete(std::move(transfer), result);
    }
    for (auto it = m_active.begin(); it != m_active.end();) {
        const quint64 id = it->second->id();
        if (id <= upTo || std::find(ids.begin(), ids.end(), id) != ids.end()) {
            curl_multi_remove_handle(m_multi, it->first);
            auto transfer = std::move(it->second);
            it = m_active.erase(it);
            if (transfer->request().mode == ConnectionMode::Reused)
                m_keepAlive.forget(transfer->origin());
            const ProbeResult result = transfer->cancelledResult();
            complete(std::move(transfer), result);
        } else {
            ++it;
        }
    }
}

void ProbeEngine::Loop::collectFinished()
{
    int left = 0;
    while (CURLMsg *message = curl_multi_info_read(m_multi, &left)) {
        if (message->msg != CURLMSG_DONE)
            continue;
        CURL *easy = message->easy_handle;
        const CURLcode code = message->data.result;
        curl_multi_remove_handle(m_multi, easy);
        const auto it = m_active.find(easy);
        if (it == m_active.end())
            continue;
        auto transfer = std::move(it->second);
        m_active.erase(it);
        ProbeResult result = transfer->finish(code);
        if (transfer->request().mode == ConnectionMode::Reused)
            m_keepAlive.classify(transfer->origin(), transfer->startedAt(),
                                 CurlTransfer::Clock::now(), transfer->keptOpen(), result);
        complete(std::move(transfer), result);
    }
}

void ProbeEngine::Loop::complete(std::unique_ptr<CurlTransfer> transfer, const ProbeResult &result)
{
    // Checked first: the arguments (a URL made text) cost more than the check.
    if (spdlog::should_log(spdlog::level::debug))
        spdlog::debug("probe {} {} {} {}: status {} total {:.1f} ms {}", result.id,
                      connectionModeName(result.mode).toStdString(),
                      probeKindName(result.kind).toStdString(), result.url.toString().toStdString(),
                      result.status, result.totalMs, result.error.toStdString());
    if (transfer->onDone())
        transfer->onDone()(result);
    // During destruction the engine is half gone: callbacks only.
    if (!m_stopping)
        Q_EMIT m_engine.probeFinished(result);
}

void ProbeEngine::Loop::cancelEverything()
{
    for (auto &[easy, transfer] : m_active) {
        curl_multi_remove_handle(m_multi, easy);
        const ProbeResult result = transfer->cancelledResult();
        complete(std::move(transfer), result);
    }
    m_active.clear();
    std::deque<std::unique_ptr<CurlTransfer>> queued;
    {
        std::lock_guard lock(m_mutex);
        queued.swap(m_queue);
    }
    for (auto &transfer : queued) {
        const ProbeResult result = transfer->cancelledResult();
        complete(std::move(transfer), result);
    }
}

} // namespace opsdeck::probes
