#pragma once

#include "evidence.h"
#include "workflowplan.h"

namespace opsdeck::workflows {

/// The evidence guard (no peer has it): before a knob revert, a restart or a
/// co-restart of engines, the plan shows the current evidence; when it points
/// at the connection layer (Evidence::pointsAtConnectionLayer) and the plan
/// acts on engines rather than on the implicated hop, the plan leads with the
/// warning in plain words, offers the matching workflow (restart-proxy for a
/// proxy, restart --service ROUTER for a router), and running it needs an
/// explicit acknowledgement (WorkflowGuard: Confirmation::despiteEvidence),
/// which the run's audit entry records with the evidence. Thread: any.
class EvidenceGuard
{
public:
    /// Puts `evidence` into `plan` (its lines, its JSON) and, when it points
    /// elsewhere, the warning first among the warnings, `plan.evidenceWarning`
    /// and `plan.offer`.
    static void apply(WorkflowPlan &plan, const inventory::Inventory &inventory,
                      const Evidence &evidence);
};

} // namespace opsdeck::workflows
