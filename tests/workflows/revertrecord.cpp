#include "revertrecord.h"

#include <gtest/gtest.h>

namespace opsdeck::test {

workflows::WorkflowPlan revertPlanOf(const QString &script)
{
    using workflows::WorkflowStep;
    workflows::WorkflowPlan plan;
    plan.kind = workflows::WorkflowKind::RevertKnob;
    plan.cluster = QStringLiteral("c");
    plan.service = QStringLiteral("p");
    plan.knob = QStringLiteral("K");
    WorkflowStep edit;
    edit.action = WorkflowStep::Action::EditKnob;
    edit.title = QStringLiteral("edit %1 on local").arg(script);
    edit.host = QStringLiteral("local");
    edit.service = QStringLiteral("p");
    plan.root = WorkflowStep::sequence(QStringLiteral("revert-knob"), {edit});
    plan.number();
    return plan;
}

inventory::Inventory inventoryServing(const QString &script, const QString &dir)
{
    const auto loaded = inventory::parseInventory(
        QStringLiteral("armed: true\nhosts:\n  - {name: local, kind: local}\nservices:\n"
                       "  - {name: p, role: prefill, host: local, url: 'http://127.0.0.1:30001', "
                       "pid_file: /run/p.pid, start: start-p, serve_script: '%1'}\n"
                       "  - {name: d, role: decode, host: local, url: 'http://127.0.0.1:30002', "
                       "pid_file: /run/d.pid, start: start-d}\n"
                       "clusters:\n  - {name: c, prefill: [p], decode: [d]}\n")
            .arg(script)
            .toUtf8(),
        dir + QStringLiteral("/i.yaml"));
    if (!loaded.inventory) {
        ADD_FAILURE() << loaded.errors.first().toString().toStdString();
        return {};
    }
    return *loaded.inventory;
}

} // namespace opsdeck::test
