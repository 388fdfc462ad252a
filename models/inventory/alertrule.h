#pragma once

#include <QString>
#include <QVector>
#include <optional>

namespace opsdeck::inventory {

/// The alert rules OpsDeck evaluates (README "Alerts"):
/// SchedulerStuck  a decode or engine service has waiting requests (> 0) and
///                 none running (== 0) on every sample for `forS` seconds;
/// E2eFailing      a cluster's entry service (router, else proxy, else first
///                 decode) answers its health check with 200 but the last
///                 end-to-end chat-completion probe through it failed;
/// FailuresRising  a PD service of a cluster counts KV bootstrap or transfer
///                 failures (rate > 0 per second) for `forS` seconds.
enum class AlertKind
{
    SchedulerStuck,
    E2eFailing,
    FailuresRising
};

/// `scheduler_stuck`, `e2e_failing`, `failures_rising`, as written in the inventory.
QString alertKindName(AlertKind kind);
/// Inverse of alertKindName(); exact match, nullopt for anything else.
std::optional<AlertKind> alertKindFromName(const QString &name);

/// One entry of the inventory's `alerts.rules` list. Plain data.
struct AlertRule
{
    AlertKind kind = AlertKind::SchedulerStuck;
    /// scheduler_stuck only: the decode/engine service watched; empty = every one.
    QString service;
    /// e2e_failing and failures_rising: the cluster watched; empty = every one.
    QString cluster;
    /// Seconds the condition must hold before the alert is raised (scheduler_stuck:
    /// default 60, failures_rising: default 30); 0 for e2e_failing, which fires on
    /// the last probe.
    int forS = 0;

    /// The default hold of `kind`, in seconds (60, 0, 30).
    static int defaultForS(AlertKind kind);
};

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
