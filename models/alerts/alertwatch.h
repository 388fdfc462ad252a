#pragma once

#include "inventory.h"

#include <QStringList>
#include <QVector>

namespace opsdeck::alerts {

/// One rule applied to one target: what AlertEvaluator tracks. Built from the
/// inventory's rules by AlertWatch::fromInventory(), where an empty rule target
/// means "every decode/engine service" or "every cluster". Plain data.
struct AlertWatch
{
    inventory::AlertKind kind = inventory::AlertKind::SchedulerStuck;
    /// Service (scheduler_stuck) or cluster name.
    QString target;
    /// Services whose samples decide it: the service itself (scheduler_stuck),
    /// the cluster's prefill and decode services (failures_rising), the entry
    /// service (e2e_failing).
    QStringList services;
    /// e2e_failing: the service the end-to-end probe enters at and whose health
    /// is compared: the cluster's router, else its proxy, else its first decode.
    inventory::Service entry;
    /// Seconds the condition must hold before the alert is raised (0: at once).
    int forS = 0;

    QString key() const { return inventory::alertKindName(kind) + u':' + target; }

    /// Every (rule, target) pair of `inventory`, in rule order; a pair named by
    /// two rules is kept once, with the first rule's for_s. Clusters whose
    /// entry service is missing from the inventory are skipped (a loaded
    /// inventory has none).
    static QVector<AlertWatch> fromInventory(const inventory::Inventory &inventory);
    /// The e2e_failing entry service of `cluster` (router, else proxy, else first
    /// decode); nullptr when none exists.
    static const inventory::Service *entryOf(const inventory::Inventory &inventory,
                                             const inventory::Cluster &cluster);
};

} // namespace opsdeck::alerts
