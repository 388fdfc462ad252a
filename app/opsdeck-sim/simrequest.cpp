#include "simrequest.h"

namespace opsdeck::sim {

SimRequest::SimRequest(int promptTokens, int maxTokens, Kind kind, bool streaming)
    : m_promptTokens(promptTokens), m_maxTokens(maxTokens), m_kind(kind), m_streaming(streaming),
      m_arrival(Clock::now())
{
}

int SimRequest::waitForProgress(int seen, std::chrono::milliseconds timeout)
{
    std::unique_lock lock(m_mutex);
    m_cv.wait_for(lock, timeout, [&] { return m_generated > seen || m_finished || m_aborted; });
    return m_generated;
}

int SimRequest::generated() const
{
    std::lock_guard lock(m_mutex);
    return m_generated;
}

bool SimRequest::finished() const
{
    std::lock_guard lock(m_mutex);
    return m_finished;
}

bool SimRequest::aborted() const
{
    std::lock_guard lock(m_mutex);
    return m_aborted;
}

void SimRequest::addToken(Clock::time_point at)
{
    {
        std::lock_guard lock(m_mutex);
        ++m_generated;
    }
    sched.lastTokenAt = at;
    // Only a streaming consumer wants every token; a non-streaming one would
    // just wake up a batch of threads per step for nothing.
    if (m_streaming)
        m_cv.notify_all();
}

void SimRequest::finish()
{
    {
        std::lock_guard lock(m_mutex);
        m_finished = true;
    }
    m_cv.notify_all();
}

void SimRequest::abort()
{
    {
        std::lock_guard lock(m_mutex);
        m_aborted = true;
    }
    m_cv.notify_all();
}

} // namespace opsdeck::sim
