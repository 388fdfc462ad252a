#pragma once

#include "alertrule.h"

#include <QMetaType>
#include <QString>

namespace opsdeck::alerts {

/// One alert: a rule whose condition holds for one target. Plain data,
/// copied across threads (AlertEvaluator's thread to the GUI thread).
/// Times are those of the samples that decided it (scrape, health-check and
/// probe times), not the wall clock when the signal was handled.
struct Alert
{
    inventory::AlertKind kind = inventory::AlertKind::SchedulerStuck;
    /// Service name (scheduler_stuck) or cluster name (e2e_failing, failures_rising).
    QString target;
    /// When the condition began, ms since the Unix epoch (first sample that showed it).
    qint64 sinceMs = 0;
    /// When the alert was raised (or cleared, in alertCleared), ms since the Unix epoch.
    qint64 atMs = 0;
    /// What is wrong in plain words with the numbers, for the banner and the
    /// notification body ("decode: 3 requests waiting and none running for 61 s ...").
    QString text;

    /// `kind:target`, e.g. "scheduler_stuck:decode": one alert per key at a time.
    QString key() const;
    /// Short title for a notification summary: "Scheduler stuck: decode".
    QString title() const;
};

} // namespace opsdeck::alerts

Q_DECLARE_METATYPE(opsdeck::alerts::Alert)
