#include "alertwatch.h"

#include <QSet>

using namespace Qt::StringLiterals;

namespace opsdeck::alerts {

namespace {

using inventory::AlertKind;
using inventory::AlertRule;
using inventory::Inventory;

QVector<AlertWatch> watchesOf(const Inventory &inventory, const AlertRule &rule)
{
    QVector<AlertWatch> watches;
    if (rule.kind == AlertKind::SchedulerStuck) {
        for (const inventory::Service &service : inventory.services) {
            const bool batch =
                service.role == inventory::Role::Decode || service.role == inventory::Role::Engine;
            if (!batch || (!rule.service.isEmpty() && rule.service != service.name))
                continue;
            AlertWatch watch;
            watch.kind = rule.kind;
            watch.target = service.name;
            watch.services = {service.name};
            watch.forS = rule.forS;
            watches.append(watch);
        }
        return watches;
    }
    for (const inventory::Cluster &cluster : inventory.clusters) {
        if (!rule.cluster.isEmpty() && rule.cluster != cluster.name)
            continue;
        AlertWatch watch;
        watch.kind = rule.kind;
        watch.target = cluster.name;
        watch.forS = rule.forS;
        if (rule.kind == AlertKind::FailuresRising) {
            watch.services = cluster.prefill + cluster.decode;
        } else {
            const inventory::Service *entry = AlertWatch::entryOf(inventory, cluster);
            if (!entry)
                continue;
            watch.entry = *entry;
            watch.services = {entry->name};
        }
        watches.append(watch);
    }
    return watches;
}

} // namespace

const inventory::Service *AlertWatch::entryOf(const Inventory &inventory,
                                              const inventory::Cluster &cluster)
{
    // The router is where a client's request enters the PD pair; a proxy in
    // front of it is a client-side hop that the router probe does not need.
    for (const QString &name : {cluster.router, cluster.proxy}) {
        if (!name.isEmpty())
            if (const inventory::Service *service = inventory.service(name))
                return service;
    }
    return cluster.decode.isEmpty() ? nullptr : inventory.service(cluster.decode.first());
}

QVector<AlertWatch> AlertWatch::fromInventory(const Inventory &inventory)
{
    QVector<AlertWatch> watches;
    QSet<QString> seen;
    for (const AlertRule &rule : inventory.alerts.rules) {
        for (const AlertWatch &watch : watchesOf(inventory, rule)) {
            if (seen.contains(watch.key()))
                continue;
            seen.insert(watch.key());
            watches.append(watch);
        }
    }
    return watches;
}

} // namespace opsdeck::alerts
