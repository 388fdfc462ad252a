#include "guiwatchdog.h"

#include <chrono>

namespace opsdeck::test {

namespace {

qint64 steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

GuiWatchdog::GuiWatchdog()
{
    m_beat.setTimerType(Qt::PreciseTimer);
    QObject::connect(&m_beat, &QTimer::timeout, &m_beat,
                     [this] { m_lastBeatMs.store(steadyMs()); });
    m_lastBeatMs.store(steadyMs());
    m_beat.start(20);
    m_thread = std::thread([this] {
        std::unique_lock lock(m_mutex);
        // Samples the heartbeat every 5 ms until told to stop.
        while (!m_stopped.wait_for(lock, std::chrono::milliseconds(5),
                                   [this] { return m_stop.load(); })) {
            const qint64 gap = steadyMs() - m_lastBeatMs.load();
            qint64 worst = m_worstMs.load();
            while (gap > worst && !m_worstMs.compare_exchange_weak(worst, gap)) {
            }
        }
    });
}

GuiWatchdog::~GuiWatchdog()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stop.store(true);
    }
    m_stopped.notify_all();
    m_thread.join();
}

} // namespace opsdeck::test
