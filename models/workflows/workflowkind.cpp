#include "workflowkind.h"

#include <QStringList>
#include <array>

namespace opsdeck::workflows {

namespace {

constexpr std::array kinds{WorkflowKind::Restart, WorkflowKind::CoRestart,
                           WorkflowKind::RestartProxy, WorkflowKind::RevertKnob,
                           WorkflowKind::RestoreKnob};

} // namespace

QString workflowKindName(WorkflowKind kind)
{
    switch (kind) {
    case WorkflowKind::Restart:
        return QStringLiteral("restart");
    case WorkflowKind::CoRestart:
        return QStringLiteral("co-restart");
    case WorkflowKind::RestartProxy:
        return QStringLiteral("restart-proxy");
    case WorkflowKind::RevertKnob:
        return QStringLiteral("revert-knob");
    case WorkflowKind::RestoreKnob:
        return QStringLiteral("restore-knob");
    }
    return {};
}

std::optional<WorkflowKind> workflowKindFromName(const QString &name)
{
    for (const WorkflowKind kind : kinds) {
        if (workflowKindName(kind) == name)
            return kind;
    }
    return std::nullopt;
}

QString workflowKindNames()
{
    QStringList names;
    for (const WorkflowKind kind : kinds)
        names << workflowKindName(kind);
    return names.join(QStringLiteral(", "));
}

bool editsKnobs(WorkflowKind kind)
{
    return kind == WorkflowKind::RevertKnob || kind == WorkflowKind::RestoreKnob;
}

} // namespace opsdeck::workflows
