#pragma once

#include "curltransfer.h"
#include "keepalivetracker.h"
#include "probeengine.h"
#include "workerthread.h"

#include <atomic>
#include <curl/curl.h>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace opsdeck::probes {

/// ProbeEngine's thread: one curl multi handle (and so one connection cache,
/// where Reused probes find their kept-alive connection) driven by
/// curl_multi_poll; other threads hand over work through a mutex-guarded
/// queue and wake it with curl_multi_wakeup.
class ProbeEngine::Loop
{
public:
    Loop(ProbeEngine &engine, Limits limits);
    ~Loop(); ///< cancels everything, calls the callbacks, joins
    Loop(const Loop &) = delete;
    Loop &operator=(const Loop &) = delete;

    quint64 submit(ProbeRequest request, Callback onDone);
    /// ProbeEngine::Batch: true when the calling thread had no batch open
    /// (then endBatch() must follow from it).
    bool beginBatch();
    void endBatch();
    void cancel(quint64 id);
    void cancelAll();

private:
    void run();
    /// Moves queued probes into the multi handle while slots are free.
    /// Returns true when it started any.
    bool startQueued();
    void applyCancels();
    void collectFinished();
    void complete(std::unique_ptr<CurlTransfer> transfer, const ProbeResult &result);
    void cancelEverything();

    ProbeEngine &m_engine;
    const Limits m_limits;
    CURLM *m_multi = nullptr;
    std::atomic<bool> m_stopping{false};
    std::atomic<quint64> m_nextId{1};

    std::mutex m_mutex; // guards the four members below
    std::deque<std::unique_ptr<CurlTransfer>> m_queue;
    std::vector<quint64> m_cancelIds;
    quint64 m_cancelUpTo = 0; ///< cancelAll(): every id <= this one
    /// Threads with a Batch open: their submissions do not wake the loop.
    std::vector<std::thread::id> m_batching;

    // Engine thread only.
    std::map<CURL *, std::unique_ptr<CurlTransfer>> m_active;
    KeepAliveTracker m_keepAlive;
    std::unique_ptr<threads::WorkerThread> m_thread; ///< runs run(); last, so it ends first
};

} // namespace opsdeck::probes
