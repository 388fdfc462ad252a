#include "workflowguard.h"

namespace opsdeck::workflows {

QString WorkflowGuard::refusal(const WorkflowPlan &plan, bool armed,
                               const Confirmation &confirmation)
{
    if (!plan.refusal.isEmpty())
        return plan.refusal;
    if (!armed)
        return QStringLiteral("%1 is read-only (armed: false): no workflow runs. Set `armed: "
                              "true` in it, or arm this session in the window")
            .arg(plan.inventoryPath);
    const QString target = plan.confirmationTarget();
    if (confirmation.typed.isEmpty())
        return QStringLiteral("%1 changes %2: type \"%2\" to confirm (--confirm %2)")
            .arg(workflowKindName(plan.kind), target);
    if (confirmation.typed != target)
        return QStringLiteral("the confirmation does not match: type \"%1\" to confirm, \"%2\" "
                              "was typed")
            .arg(target, confirmation.typed);
    if (plan.production && confirmation.reason.trimmed().isEmpty())
        return QStringLiteral("%1 touches production: give a reason (--reason TEXT)").arg(target);
    if (!plan.evidenceWarning.isEmpty() && !confirmation.despiteEvidence)
        return plan.evidenceWarning +
               QStringLiteral(" To go ahead all the same, acknowledge it (--despite-evidence)%1")
                   .arg(plan.offer.isEmpty() ? QString() : QStringLiteral("; or: ") + plan.offer);
    return {};
}

} // namespace opsdeck::workflows
