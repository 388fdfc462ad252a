#pragma once

#include "inventorydiagnostics.h"

#include <yaml-cpp/yaml.h>

namespace opsdeck::inventory::detail {

/// What an inventory may expand to once its aliases are followed: yaml-cpp
/// shares an anchored node between its aliases, but reading the inventory
/// copies each use, so a 1 MB string with 3,000 aliases would cost 3 GB. The
/// document is walked once as the reader would see it, counting nodes and
/// scalar bytes, and refused at the first node past either limit, before any
/// of it is copied. A real inventory is a few hundred nodes and kilobytes.
class YamlBudget
{
public:
    static constexpr qint64 kMaxNodes = 100'000;                ///< nodes, aliases followed
    static constexpr qint64 kMaxScalarBytes = 16 * 1024 * 1024; ///< bytes of all scalars, same

    /// True within both limits; else adds one error at the alias or node
    /// where the limit was passed (file:line:column) and returns false.
    static bool check(const YAML::Node &root, InventoryDiagnostics &diagnostics);
};

} // namespace opsdeck::inventory::detail
