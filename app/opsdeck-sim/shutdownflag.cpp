#include "shutdownflag.h"

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace opsdeck::sim {

namespace {
std::atomic<bool> s_triggered{false};
std::mutex s_mutex;
std::condition_variable s_cv;
} // namespace

void ShutdownFlag::trigger()
{
    {
        std::lock_guard lock(s_mutex);
        s_triggered = true;
    }
    s_cv.notify_all();
}

bool ShutdownFlag::triggered()
{
    return s_triggered.load();
}

bool ShutdownFlag::sleepFor(std::chrono::milliseconds duration)
{
    std::unique_lock lock(s_mutex);
    return !s_cv.wait_for(lock, duration, [] { return s_triggered.load(); });
}

} // namespace opsdeck::sim
