#pragma once

#include <QTimer>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace opsdeck::test {

/// Watches the GUI thread from outside: a timer on the creating (GUI) thread
/// beats every 20 ms, a thread of its own looks every 5 ms at how long ago
/// the last beat was. The worst gap is the worst stall of the event loop
/// (plus the 20 ms period). Create it on the GUI thread; the tests fail on a
/// stall over a generous limit (1 s), never on a tight timing.
class GuiWatchdog
{
public:
    GuiWatchdog();
    ~GuiWatchdog();
    GuiWatchdog(const GuiWatchdog &) = delete;
    GuiWatchdog &operator=(const GuiWatchdog &) = delete;

    /// The longest time without a beat so far, ms.
    qint64 worstStallMs() const { return m_worstMs.load(); }

private:
    QTimer m_beat;
    std::atomic<qint64> m_lastBeatMs{0};
    std::atomic<qint64> m_worstMs{0};
    std::atomic<bool> m_stop{false};
    std::mutex m_mutex;
    std::condition_variable m_stopped;
    std::thread m_thread;
};

} // namespace opsdeck::test
