#pragma once

#include <chrono>
#include <condition_variable>
#include <httplib.h>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace opsdeck::sim {

class UpstreamPool;

/// One HTTP exchange with an upstream, run on a thread of its own so the
/// caller can relay the response while it arrives (SSE pass-through).
///
/// The caller waits for the status and headers, then pulls body pieces with
/// next() or takes the whole body with readAll(). cancel() aborts the
/// exchange at once (also while blocked on a silent upstream) and closes that
/// connection, which the upstream sees as a client disconnect. Held by
/// shared_ptr (handler and response provider); the destructor cancels and
/// joins. Thread-safe.
class UpstreamCall
{
public:
    struct Request
    {
        std::string method = "GET";
        std::string path;
        httplib::Headers headers;
        std::string body;
    };

    UpstreamCall(UpstreamPool &pool, Request request);
    ~UpstreamCall();
    UpstreamCall(const UpstreamCall &) = delete;
    UpstreamCall &operator=(const UpstreamCall &) = delete;

    /// Waits until the headers arrived or the exchange failed; false on failure.
    bool waitForHeaders(std::chrono::milliseconds timeout);
    bool headersReady() const;
    int status() const;
    httplib::Headers headers() const;
    /// True once the exchange ended (body complete, failed or cancelled).
    bool finished() const;
    bool waitFinished(std::chrono::milliseconds timeout);
    /// True when the exchange failed (no connection, cut off, cancelled).
    bool failed() const;
    std::string error() const;

    /// Moves the body bytes received so far into `chunk`, waiting up to
    /// `wait` for some. Returns false once the body has ended and all was taken.
    bool next(std::string &chunk, std::chrono::milliseconds wait);
    void cancel();

private:
    void run(UpstreamPool &pool, Request request);

    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    httplib::Client *m_client = nullptr; ///< in use by run(); cancel() stops it
    bool m_headersReady = false;
    bool m_done = false;
    bool m_failed = false;
    bool m_cancelled = false;
    int m_status = 0;
    httplib::Headers m_headers;
    std::string m_buffer;
    std::string m_error;
    std::thread m_thread;
};

} // namespace opsdeck::sim
