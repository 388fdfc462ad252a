#include "conditiontracker.h"

namespace opsdeck::alerts {

ConditionTracker::ConditionTracker(qint64 forMs, qint64 graceMs)
    : m_forMs(forMs), m_graceMs(graceMs)
{
}

ConditionTracker::Change ConditionTracker::update(qint64 atMs, std::optional<bool> holds)
{
    if (!holds)
        return Change::None;
    // Two sources (e.g. /v1/loads and /metrics) may interleave slightly out of order;
    // an older sample must not undo what a newer one showed.
    if (m_lastSampleMs && atMs < *m_lastSampleMs)
        return Change::None;
    m_lastSampleMs = atMs;
    if (*holds) {
        if (!m_inStreak) {
            m_inStreak = true;
            m_sinceMs = atMs;
        }
        m_lastTrueMs = atMs;
        if (!m_raised && atMs - m_sinceMs >= m_forMs) {
            m_raised = true;
            return Change::Raised;
        }
        return Change::None;
    }
    if (!m_inStreak || atMs - m_lastTrueMs < m_graceMs)
        return Change::None;
    m_inStreak = false;
    if (!m_raised)
        return Change::None;
    m_raised = false;
    return Change::Cleared;
}

} // namespace opsdeck::alerts
