#pragma once

#include <QString>
#include <QVector>
#include <optional>

namespace opsdeck::inventory {

/// The alert rules OpsDeck evaluates (README "Alerts"):
/// SchedulerStuck  a decode or engine service has waiting requests (> 0) and
///                 none running (== 0) on every sample for `forS` seconds;
/// E2eFailing      a cluster's entry service (router, else proxy, else first
///                 decode) answers its health check with 200 but the last two
///                 end-to-end chat-completion probes through it failed;
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
    /// its probes' outcomes.
    int forS = 0;

    /// The default hold of `kind`, in seconds (60, 0, 30).
    static int defaultForS(AlertKind kind);
};

} // namespace opsdeck::inventory
