#pragma once

#include "alertsettings.h"
#include "yamlmapping.h"

namespace opsdeck::inventory::detail {

/// Reads the inventory's top-level `alerts:` mapping (schema in README
/// "Alerts") into AlertSettings, reporting every problem of structure, type
/// and value (a kind that does not exist, `service` on a cluster rule,
/// `for_s` on e2e_failing) to the diagnostics under `alerts.…` fields.
/// Whether a rule's service or cluster exists is left to AlertsChecker.
class AlertsReader
{
public:
    explicit AlertsReader(InventoryDiagnostics &diagnostics);

    /// `node`: the value of the `alerts` key; null means "absent" (the defaults).
    AlertSettings read(const YAML::Node &node);

private:
    AlertRule readRule(YamlMapping &fields);

    InventoryDiagnostics &m_diagnostics;
};

} // namespace opsdeck::inventory::detail
