#pragma once

#include "inventory.h"
#include "inventorydiagnostics.h"

namespace opsdeck::inventory::detail {

/// Checks that need the whole file: unique names, each service's host and
/// `via` host (an ssh one), and
/// cluster members (they exist and have the right role). Runs after
/// InventoryReader; fields that already failed there are skipped.
class InventoryChecker
{
public:
    InventoryChecker(InventoryDiagnostics &diagnostics, const Inventory &inventory);

    void check();

private:
    template <typename Item>
    void checkUniqueNames(const QVector<Item> &items, const QString &list, const QString &what);
    void checkServiceHosts();
    void checkServiceVia(const QString &known);
    void checkCluster(int index);
    void checkMembers(const QString &field, const QStringList &names, Role expected);
    void checkMember(const QString &field, const QString &name, Role expected);

    InventoryDiagnostics &m_diagnostics;
    const Inventory &m_inventory;
};

} // namespace opsdeck::inventory::detail
