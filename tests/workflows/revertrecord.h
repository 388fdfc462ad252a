#pragma once

// A revert-knob of K on one serve script, as the runner plans and journals
// it, for the tests of restore-knob's planning and of the edit step: the
// plan's one EditKnob step, an inventory naming the script, and a journal.
#include "inventory.h"
#include "workflowplan.h"

#include <QString>

namespace opsdeck::test {

/// revert-knob of K on service p (cluster c, host local): one EditKnob step
/// titled as the runbook titles it ("edit SCRIPT on local"), numbered.
workflows::WorkflowPlan revertPlanOf(const QString &script);

/// Cluster c: prefill p (serve_script `script`) and decode d on host local;
/// armed. Loaded from `dir`/i.yaml's text (not written); an empty inventory
/// and a test failure when it does not load.
inventory::Inventory inventoryServing(const QString &script, const QString &dir);

} // namespace opsdeck::test
