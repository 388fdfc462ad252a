#include "evidenceguard.h"

namespace opsdeck::workflows {

namespace {

bool isEngine(const inventory::Service *service)
{
    return service &&
           (service->role == inventory::Role::Prefill || service->role == inventory::Role::Decode ||
            service->role == inventory::Role::Engine);
}

} // namespace

void EvidenceGuard::apply(WorkflowPlan &plan, const inventory::Inventory &inventory,
                          const Evidence &evidence)
{
    plan.evidence = evidence.json();
    plan.evidenceLines = evidence.lines();
    if (!evidence.pointsAtConnectionLayer() && !evidence.unreadable)
        return;
    // The services the plan changes: the one given, else the pair.
    QStringList targets;
    for (const WorkflowPlan::KnobEdit &edit : plan.knobEdits)
        targets << edit.service;
    if (!plan.service.isEmpty()) {
        targets << plan.service;
    } else if (plan.kind == WorkflowKind::CoRestart) {
        if (const inventory::Cluster *cluster = inventory.cluster(plan.cluster))
            targets << cluster->prefill << cluster->decode;
    }
    const bool onEngines = std::any_of(targets.cbegin(), targets.cend(), [&](const QString &name) {
        return isEngine(inventory.service(name));
    });
    if (!onEngines)
        return; // acting on the implicated hop (or another one that is no engine) alone
    if (evidence.unreadable) {
        // Never imply more than was checked: an engine change goes ahead
        // only once someone says so.
        plan.evidenceWarning = QStringLiteral("The evidence could not be read (%1): whether it "
                                              "points at the connection layer rather than the "
                                              "engines cannot be told.")
                                   .arg(evidence.source);
        plan.warnings.prepend(plan.evidenceWarning);
        return;
    }
    const QString hop = evidence.stall->hop;
    const QString what =
        plan.kind == WorkflowKind::RevertKnob || plan.kind == WorkflowKind::RestoreKnob
            ? QStringLiteral("Reverting an engine knob")
            : QStringLiteral("Restarting an engine");
    plan.evidenceWarning = evidence.connectionLayerWarning(what);
    const bool proxy = evidence.stall->role == inventory::Role::Proxy;
    plan.offerKind = proxy ? WorkflowKind::RestartProxy : WorkflowKind::Restart;
    plan.offerService = proxy ? QString() : hop;
    plan.offer = proxy
                     ? QStringLiteral("opsdeck-cli workflow plan restart-proxy --inventory %1 "
                                      "--cluster %2")
                           .arg(plan.inventoryPath, plan.cluster)
                     : QStringLiteral("opsdeck-cli workflow plan restart --inventory %1 --cluster "
                                      "%2 --service %3")
                           .arg(plan.inventoryPath, plan.cluster, hop);
    plan.warnings.prepend(plan.evidenceWarning + QStringLiteral(" Instead: ") + plan.offer);
}

} // namespace opsdeck::workflows
