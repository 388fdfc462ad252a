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

namespace opsdeck::workflows {

/// The serve-script edits of a revert-knob or restore-knob workflow, planned
/// before the workflow is (the plan shows each diff; RunbookPlanner places
/// them):
/// - the services: `service` alone, else every member of the cluster whose
///   serve script sets the knob (an export, an assignment, an `env K=V`
///   prefix or a launch flag);
/// - revert-knob `KEY` comments the knob out (the server's default),
///   `KEY=VALUE` sets it, `backup` takes its value from that backup
///   (commented out when the backup does not set it);
/// - restore-knob: the value in `backup`, else in the backup the last
///   revert-knob of KEY in this cluster made (the data dir's workflow
///   journals), or with `undoing` the backups that workflow made (of any
///   kind, only the scripts it edited); a script untouched since gets the
///   backup back whole, byte for byte. A recorded backup whose SHA-256 is no
///   longer the one its journal recorded is refused.
/// Thread: the KnobFiles' (the GUI or the CLI's main thread); `done` is
/// called there once, with the edits or with what is wrong (naming the
/// service, the script or the knob).
class KnobEditPlanner
{
public:
    struct Request
    {
        WorkflowKind kind = WorkflowKind::RevertKnob;
        QString cluster;
        QString service; ///< empty: every member that sets the knob
        QString knob;    ///< KEY or KEY=VALUE
        QString backup;  ///< a backup's path on the service's host, or empty
        QString dataDir; ///< where the workflow journals are (restore-knob)
        /// restore-knob: a workflow's id; only the scripts it edited are
        /// restored, each from the backup it made (the automatic rollback)
        QString undoing;
    };
    /// A host's KnobFiles; nullptr when the host cannot be reached.
    using FilesOf = std::function<knobs::KnobFiles *(const QString &host)>;
    using Done = std::function<void(const std::optional<QVector<WorkflowPlan::KnobEdit>> &edits,
                                    const QString &error)>;

    static void plan(const inventory::Inventory &inventory, const Request &request, FilesOf filesOf,
                     Done done);
};

} // namespace opsdeck::workflows
