#pragma once

#include "inventory.h"
#include "inventorydiagnostics.h"

namespace opsdeck::inventory::detail {

/// Checks that need the whole file for the `alerts.rules` entries: a rule's
/// `service` names a decode or engine service, its `cluster` a cluster.
/// Runs after InventoryReader; fields that already failed are skipped.
class AlertsChecker
{
public:
    AlertsChecker(InventoryDiagnostics &diagnostics, const Inventory &inventory);

    void check();

private:
    void checkService(const QString &field, const QString &name);
    void checkCluster(const QString &field, const QString &name);

    InventoryDiagnostics &m_diagnostics;
    const Inventory &m_inventory;
};

} // namespace opsdeck::inventory::detail
