#include "alertschecker.h"

using namespace Qt::StringLiterals;

namespace opsdeck::inventory::detail {

namespace {

bool watchesBatch(Role role)
{
    return role == Role::Decode || role == Role::Engine;
}

} // namespace

AlertsChecker::AlertsChecker(InventoryDiagnostics &diagnostics, const Inventory &inventory)
    : m_diagnostics(diagnostics), m_inventory(inventory)
{
}

void AlertsChecker::check()
{
    const QVector<AlertRule> &rules = m_inventory.alerts.rules;
    for (int i = 0; i < rules.size(); ++i) {
        const QString path = u"alerts.rules[%1]."_s.arg(i);
        if (!rules[i].service.isEmpty())
            checkService(path + u"service"_s, rules[i].service);
        if (!rules[i].cluster.isEmpty())
            checkCluster(path + u"cluster"_s, rules[i].cluster);
    }
}

void AlertsChecker::checkService(const QString &field, const QString &name)
{
    if (m_diagnostics.failed(field))
        return;
    QStringList candidates;
    for (const Service &service : m_inventory.services) {
        if (watchesBatch(service.role) && !service.name.isEmpty())
            candidates.append(service.name);
    }
    const Service *service = m_inventory.service(name);
    if (service && watchesBatch(service->role))
        return;
    const QString hint = candidates.isEmpty()
                             ? u"there is no decode or engine service"_s
                             : u"decode and engine services: "_s + candidates.join(u", "_s);
    if (!service)
        m_diagnostics.add(field, u"no service named '%1' (%2)"_s.arg(name, hint));
    else
        m_diagnostics.add(field, u"service '%1' has role %2; scheduler_stuck watches a decode or "
                                 "engine service (%3)"_s.arg(name, roleName(service->role), hint));
}

void AlertsChecker::checkCluster(const QString &field, const QString &name)
{
    if (m_diagnostics.failed(field) || m_inventory.cluster(name))
        return;
    QStringList names;
    for (const Cluster &cluster : m_inventory.clusters) {
        if (!cluster.name.isEmpty())
            names.append(cluster.name);
    }
    const QString hint = names.isEmpty() ? u"the inventory declares no clusters"_s
                                         : u"clusters: "_s + names.join(u", "_s);
    m_diagnostics.add(field, u"no cluster named '%1' (%2)"_s.arg(name, hint));
}

} // namespace opsdeck::inventory::detail
