#include "upstreamcall.h"

#include "logger.h"
#include "upstreampool.h"

namespace opsdeck::sim {

UpstreamCall::UpstreamCall(UpstreamPool &pool, Request request)
{
    m_thread = std::thread(
        [this, &pool, request = std::move(request)]() mutable { run(pool, std::move(request)); });
}

UpstreamCall::~UpstreamCall()
{
    cancel();
    if (m_thread.joinable())
        m_thread.join();
}

void UpstreamCall::run(UpstreamPool &pool, Request request)
{
    UpstreamPool::Lease lease = pool.acquire();
    httplib::Client *client = lease.client.get();
    const long connectsBefore = *lease.connects;
    {
        std::lock_guard lock(m_mutex);
        if (m_cancelled) {
            m_done = m_failed = true;
            m_error = "cancelled";
            m_cv.notify_all();
            return;
        }
        m_client = client;
    }
    httplib::Request req;
    req.method = request.method;
    req.path = request.path;
    req.headers = std::move(request.headers);
    req.body = std::move(request.body);
    req.response_handler = [this](const httplib::Response &response) {
        std::lock_guard lock(m_mutex);
        m_status = response.status;
        m_headers = response.headers;
        m_headersReady = true;
        m_cv.notify_all();
        return !m_cancelled;
    };
    req.content_receiver = [this](const char *data, size_t length, uint64_t, uint64_t) {
        std::lock_guard lock(m_mutex);
        if (m_cancelled)
            return false;
        m_buffer.append(data, length);
        m_cv.notify_all();
        return true;
    };
    httplib::Response response;
    httplib::Error error = httplib::Error::Success;
    const bool ok = client->send(req, response, error);
    bool reusable = false;
    {
        std::lock_guard lock(m_mutex);
        m_client = nullptr; // from here on cancel() must not touch the client
        m_done = true;
        if (!ok || m_cancelled) {
            m_failed = true;
            // Whether the exchange went on a kept connection, and how long
            // that idled, tells a stale keep-alive from an upstream that went
            // away (a failed connect was a new connection in any case).
            m_error = m_cancelled ? "cancelled" : httplib::to_string(error);
            if (!m_cancelled && error != httplib::Error::Connection)
                m_error += *lease.connects != connectsBefore
                               ? " (new connection)"
                               : " (kept connection, idle " +
                                     std::to_string(static_cast<long>(lease.idleMs)) + " ms)";
        }
        reusable = ok && !m_cancelled;
        m_cv.notify_all();
    }
    if (!ok && !m_cancelled)
        Logger::warn("upstream " + pool.upstream().origin() + req.path + " failed: " + m_error);
    pool.release(std::move(lease), reusable);
}

bool UpstreamCall::waitForHeaders(std::chrono::milliseconds timeout)
{
    std::unique_lock lock(m_mutex);
    m_cv.wait_for(lock, timeout, [&] { return m_headersReady || m_done; });
    return m_headersReady;
}

bool UpstreamCall::headersReady() const
{
    std::lock_guard lock(m_mutex);
    return m_headersReady;
}

int UpstreamCall::status() const
{
    std::lock_guard lock(m_mutex);
    return m_status;
}

httplib::Headers UpstreamCall::headers() const
{
    std::lock_guard lock(m_mutex);
    return m_headers;
}

bool UpstreamCall::finished() const
{
    std::lock_guard lock(m_mutex);
    return m_done;
}

bool UpstreamCall::waitFinished(std::chrono::milliseconds timeout)
{
    std::unique_lock lock(m_mutex);
    return m_cv.wait_for(lock, timeout, [&] { return m_done; });
}

bool UpstreamCall::failed() const
{
    std::lock_guard lock(m_mutex);
    return m_failed;
}

std::string UpstreamCall::error() const
{
    std::lock_guard lock(m_mutex);
    return m_error;
}

bool UpstreamCall::next(std::string &chunk, std::chrono::milliseconds wait)
{
    std::unique_lock lock(m_mutex);
    m_cv.wait_for(lock, wait, [&] { return !m_buffer.empty() || m_done; });
    chunk.clear();
    chunk.swap(m_buffer);
    return !(m_done && chunk.empty());
}

void UpstreamCall::cancel()
{
    std::lock_guard lock(m_mutex);
    if (m_done || m_cancelled)
        return;
    m_cancelled = true;
    if (m_client)
        m_client->stop(); // unblocks a read on a silent upstream
    m_cv.notify_all();
}

} // namespace opsdeck::sim
