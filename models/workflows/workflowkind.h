#pragma once

#include <QString>
#include <optional>

namespace opsdeck::workflows {

/// The runbooks (issue "guarded workflows"; DESIGN.md, the action half).
/// Their names are the CLI's KIND words: a contract, never renamed.
enum class WorkflowKind
{
    Restart,      ///< "restart": one service
    CoRestart,    ///< "co-restart": a PD cluster's prefill and decode together
    RestartProxy, ///< "restart-proxy": the cluster's client-side proxy
    RevertKnob,   ///< "revert-knob": a knob edit, then the restart it needs
    RestoreKnob   ///< "restore-knob": the value before the last revert, then the restart
};

/// "restart", "co-restart", "restart-proxy", "revert-knob", "restore-knob".
QString workflowKindName(WorkflowKind kind);
std::optional<WorkflowKind> workflowKindFromName(const QString &name);
/// Every name, in the order above, joined by ", " (for error messages).
QString workflowKindNames();
/// revert-knob and restore-knob: they edit serve scripts (planned from the
/// scripts' text, never resumed).
bool editsKnobs(WorkflowKind kind);

} // namespace opsdeck::workflows
