#pragma once

#include "alertrule.h"

#include <QVector>

namespace opsdeck::inventory {

/// The inventory's `alerts:` section. Without one (or without `rules:`) the
/// three default rules apply to every decode service and every cluster.
struct AlertSettings
{
    /// Seconds between end-to-end probes of each watched cluster; 0 = no probes.
    int e2eIntervalS = 30;
    /// Whole-request bound of one end-to-end probe, seconds.
    int e2eTimeoutS = 10;
    /// The rules; `rules: []` in the file means none.
    QVector<AlertRule> rules = defaultRules();

    /// scheduler_stuck (60 s), e2e_failing and failures_rising (30 s), each for every target.
    static QVector<AlertRule> defaultRules();
};

} // namespace opsdeck::inventory
