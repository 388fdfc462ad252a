#pragma once

#include "inventory.h"
#include "workflowkind.h"
#include "workflowplan.h"

#include <QString>
#include <functional>
#include <optional>

namespace opsdeck::knobs {
class KnobFiles;
}

namespace opsdeck::cli {

/// The serve-script edits of `workflow plan|run revert-knob|restore-knob`,
/// planned before the workflow is (the plan shows each diff):
/// - the services: `--service` alone, else every member of the cluster
///   whose serve script sets the knob (an export, an assignment, an
///   `env K=V` prefix or a launch flag);
/// - revert-knob `--knob KEY` comments the knob out (the server's default),
///   `--knob KEY=VALUE` sets it, `--backup PATH` takes its value from that
///   backup (commented out when the backup does not set it);
/// - restore-knob: the value in `--backup PATH`, else in the backup the last
///   revert-knob of KEY in this cluster made (from the data dir's workflow
///   journals).
/// `filesOf(host)` gives that host's KnobFiles (nullptr: unreachable). Prints
/// what is wrong (the service, the script, the knob) and returns nothing.
std::optional<QVector<workflows::WorkflowPlan::KnobEdit>>
planKnobEdits(const inventory::Inventory &inventory, workflows::WorkflowKind kind,
              const QString &cluster, const QString &service, const QString &knob,
              const QString &backup, const QString &dataDir,
              const std::function<knobs::KnobFiles *(const QString &host)> &filesOf);

} // namespace opsdeck::cli
