#pragma once

#include <QtGlobal>
#include <optional>

namespace opsdeck::alerts {

/// Decides when a condition seen in successive samples raises and clears an
/// alert, on the samples' own times (ms), so the outcome does not depend on
/// when the samples were handled.
///
/// - A sample where the condition holds starts a streak (or continues one);
///   once the streak is `forMs` old the alert is raised, once.
/// - A sample where it does not hold ends the streak, unless the condition
///   held less than `graceMs` before it (counters change in whole events: at
///   low traffic a second without a new failure is not "the failures stopped").
///   Ending a streak clears a raised alert.
/// - A missing sample (std::nullopt: the page could not be read, the value is
///   absent) changes nothing: one lost scrape neither clears nor restarts.
/// Samples older than the last one seen are ignored.
class ConditionTracker
{
public:
    enum class Change
    {
        None,
        Raised,
        Cleared
    };

    explicit ConditionTracker(qint64 forMs = 0, qint64 graceMs = 0);

    Change update(qint64 atMs, std::optional<bool> holds);

    bool raised() const { return m_raised; }
    bool inStreak() const { return m_inStreak; }
    /// Time of the first sample of the current (or last) streak, ms.
    qint64 sinceMs() const { return m_sinceMs; }

private:
    qint64 m_forMs;
    qint64 m_graceMs;
    bool m_inStreak = false;
    bool m_raised = false;
    qint64 m_sinceMs = 0;
    qint64 m_lastTrueMs = 0;
    std::optional<qint64> m_lastSampleMs;
};

} // namespace opsdeck::alerts
