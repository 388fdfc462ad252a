#pragma once

#include "workflowplan.h"

#include <QString>

namespace opsdeck::workflows {

/// What the operator gave to run a plan: checked the same way in the window
/// and in the CLI (`--confirm NAME [--reason TEXT] [--despite-evidence]`).
struct Confirmation
{
    QString typed;  ///< the text typed: must be the plan's confirmationTarget(), exactly
    QString reason; ///< why; required when the plan touches production
    /// The operator read the evidence warning and goes ahead all the same.
    bool despiteEvidence = false;
};

/// The guards before a workflow runs, in order (DESIGN.md, the action half):
/// a refusal planning found (one side of a nixl pair); armed (an inventory
/// without `armed: true`, and not armed for this session, runs nothing); the
/// typed confirmation; a reason for production; the evidence guard's
/// acknowledgement (EvidenceGuard). Thread: any.
class WorkflowGuard
{
public:
    /// Empty when the plan may run; else why not, in words that say what to
    /// do ("type "decode" to confirm, you typed "docode"").
    static QString refusal(const WorkflowPlan &plan, bool armed, const Confirmation &confirmation);
};

} // namespace opsdeck::workflows
