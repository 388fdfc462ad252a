#include "kvregistry.h"

namespace opsdeck::sim {

namespace {
constexpr auto kKeepFinished = std::chrono::seconds(120);
constexpr auto kKeepAny = std::chrono::minutes(10);
} // namespace

KvRegistry::Room &KvRegistry::entry(std::uint64_t room)
{
    const auto now = Clock::now();
    purge(now);
    auto [it, inserted] = m_rooms.try_emplace(room);
    if (inserted)
        it->second.createdAt = now;
    return it->second;
}

void KvRegistry::purge(Clock::time_point now)
{
    // Bounded memory under endless traffic: forget collected or failed rooms
    // after two minutes and anything after ten.
    if (now - m_lastPurge < std::chrono::seconds(5))
        return;
    m_lastPurge = now;
    for (auto it = m_rooms.begin(); it != m_rooms.end();) {
        const auto age = now - it->second.createdAt;
        const bool over = it->second.collected || it->second.failed;
        if ((over && age > kKeepFinished) || age > kKeepAny)
            it = m_rooms.erase(it);
        else
            ++it;
    }
}

void KvRegistry::registerRoom(std::uint64_t room, int dpRank)
{
    {
        std::lock_guard lock(m_mutex);
        Room &r = entry(room);
        r.registered = true;
        r.dpRank = dpRank % m_dpSize;
    }
    m_cv.notify_all();
}

void KvRegistry::markPrefilled(std::uint64_t room, int promptTokens)
{
    {
        std::lock_guard lock(m_mutex);
        Room &r = entry(room);
        r.prefilled = true;
        r.promptTokens = promptTokens;
        r.readyAt = Clock::now() +
                    std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double, std::milli>(1.0 + 0.002 * promptTokens));
    }
    m_cv.notify_all();
}

void KvRegistry::markFailed(std::uint64_t room)
{
    {
        std::lock_guard lock(m_mutex);
        entry(room).failed = true;
    }
    m_cv.notify_all();
}

void KvRegistry::markStale(std::uint64_t room)
{
    {
        std::lock_guard lock(m_mutex);
        entry(room).stale = true;
    }
    m_cv.notify_all();
}

bool KvRegistry::handshake(std::uint64_t room)
{
    std::lock_guard lock(m_mutex);
    Room &r = entry(room);
    r.handshaken = true;
    return r.registered;
}

KvRegistry::Status KvRegistry::waitFor(std::uint64_t room, std::chrono::milliseconds wait,
                                       int &promptTokens)
{
    const auto deadline = Clock::now() + wait;
    std::unique_lock lock(m_mutex);
    for (;;) {
        const auto it = m_rooms.find(room);
        const auto now = Clock::now();
        if (it != m_rooms.end()) {
            Room &r = it->second;
            if (r.stale) {
                // Nothing reaches the decode: wait out the poll, report pending.
                if (m_stopping || now >= deadline)
                    return Status::Pending;
                m_cv.wait_until(lock, deadline);
                continue;
            }
            if (r.failed)
                return Status::Failed;
            if (r.prefilled && now >= r.readyAt) {
                r.collected = true;
                promptTokens = r.promptTokens;
                return Status::Ready;
            }
        }
        if (m_stopping || now >= deadline)
            return it != m_rooms.end() && it->second.registered ? Status::Pending : Status::Unknown;
        auto until = deadline;
        if (it != m_rooms.end() && it->second.prefilled && it->second.readyAt < until)
            until = it->second.readyAt;
        m_cv.wait_until(lock, until);
    }
}

void KvRegistry::counts(int dpRank, int &prealloc, int &inflight) const
{
    prealloc = 0;
    inflight = 0;
    std::lock_guard lock(m_mutex);
    for (const auto &[room, r] : m_rooms) {
        if (!r.registered || r.dpRank != dpRank || r.failed || r.collected)
            continue;
        if (r.prefilled)
            ++inflight;
        else if (!r.handshaken)
            ++prealloc;
    }
}

void KvRegistry::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_cv.notify_all();
}

} // namespace opsdeck::sim
