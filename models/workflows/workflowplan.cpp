#include "workflowplan.h"

#include <QJsonArray>

namespace opsdeck::workflows {

namespace {

void numberLeaves(WorkflowStep &step, int &next)
{
    if (step.mode == WorkflowStep::Mode::Action) {
        step.n = ++next;
        return;
    }
    for (WorkflowStep &child : step.children)
        numberLeaves(child, next);
}

// Leaves with the title of the parallel group each belongs to ("" for none).
void collect(const WorkflowStep &step, const QString &group,
             QVector<std::pair<const WorkflowStep *, QString>> &out)
{
    if (step.mode == WorkflowStep::Mode::Action) {
        out.append({&step, group});
        return;
    }
    const QString inner = step.mode == WorkflowStep::Mode::Parallel ? step.title : group;
    for (const WorkflowStep &child : step.children)
        collect(child, inner, out);
}

QVector<std::pair<const WorkflowStep *, QString>> leavesWithGroups(const WorkflowStep &root)
{
    QVector<std::pair<const WorkflowStep *, QString>> out;
    collect(root, QString(), out);
    return out;
}

} // namespace

QString actionName(WorkflowStep::Action action)
{
    switch (action) {
    case WorkflowStep::Action::None:
        return QStringLiteral("none");
    case WorkflowStep::Action::CheckBootstrap:
        return QStringLiteral("check-bootstrap");
    case WorkflowStep::Action::Stop:
        return QStringLiteral("stop");
    case WorkflowStep::Action::WaitExited:
        return QStringLiteral("wait-exited");
    case WorkflowStep::Action::Start:
        return QStringLiteral("start");
    case WorkflowStep::Action::WaitHealthy:
        return QStringLiteral("wait-healthy");
    case WorkflowStep::Action::WaitBootstrap:
        return QStringLiteral("wait-bootstrap");
    case WorkflowStep::Action::RouterReady:
        return QStringLiteral("router-ready");
    case WorkflowStep::Action::Verify:
        return QStringLiteral("verify");
    case WorkflowStep::Action::WatchFailures:
        return QStringLiteral("watch-failures");
    case WorkflowStep::Action::EditKnob:
        return QStringLiteral("edit-knob");
    case WorkflowStep::Action::Marker:
        return QStringLiteral("marker");
    case WorkflowStep::Action::Drain:
        return QStringLiteral("drain");
    case WorkflowStep::Action::Register:
        return QStringLiteral("register");
    }
    return {};
}

int WorkflowPlan::number()
{
    int next = 0;
    numberLeaves(root, next);
    return next;
}

QVector<const WorkflowStep *> WorkflowPlan::leaves() const
{
    QVector<const WorkflowStep *> out;
    for (const auto &[step, group] : leavesWithGroups(root))
        out.append(step);
    return out;
}

const WorkflowStep *WorkflowPlan::leaf(int n) const
{
    for (const WorkflowStep *step : leaves()) {
        if (step->n == n)
            return step;
    }
    return nullptr;
}

QString WorkflowPlan::text() const
{
    QStringList lines;
    lines << QStringLiteral("%1 of %2 (type \"%3\" to confirm%4)")
                 .arg(workflowKindName(kind),
                      service.isEmpty()
                          ? QString(QStringLiteral("cluster ") + cluster)
                          : QString(service + QStringLiteral(" in cluster ") + cluster),
                      confirmationTarget(),
                      production ? QStringLiteral(", with a reason: production") : QString());
    if (!refusal.isEmpty())
        lines << QStringLiteral("REFUSED: ") + refusal;
    for (const QString &warning : warnings)
        lines << QStringLiteral("WARNING: ") + warning;
    if (!evidenceLines.isEmpty()) {
        lines << QStringLiteral("Evidence:");
        for (const QString &line : evidenceLines)
            lines << QStringLiteral("  ") + line;
    }
    for (const auto &[step, group] : leavesWithGroups(root)) {
        QString line = QStringLiteral("%1. %2").arg(step->n).arg(step->title);
        if (!step->commands.isEmpty())
            line += QStringLiteral(": ") + step->commands.join(QStringLiteral("; "));
        QStringList notes;
        if (!group.isEmpty())
            notes << QStringLiteral("at once with the others of: ") + group;
        if (step->deadlineS > 0)
            notes << QStringLiteral("deadline %1 s").arg(step->deadlineS);
        if (!step->rollback.isEmpty())
            notes << QStringLiteral("undo: ") + step->rollback;
        if (!notes.isEmpty())
            line += QStringLiteral("  [") + notes.join(QStringLiteral("; ")) + u']';
        lines << line;
        for (const QString &diffLine : step->diff.split(u'\n', Qt::SkipEmptyParts))
            lines << QStringLiteral("     ") + diffLine;
    }
    return lines.join(u'\n') + u'\n';
}

QJsonObject WorkflowPlan::json() const
{
    QJsonArray steps;
    for (const auto &[step, group] : leavesWithGroups(root)) {
        QJsonObject object{{QStringLiteral("n"), step->n},
                           {QStringLiteral("title"), step->title},
                           {QStringLiteral("host"), step->host},
                           {QStringLiteral("commands"), QJsonArray::fromStringList(step->commands)},
                           {QStringLiteral("deadline_s"), step->deadlineS},
                           {QStringLiteral("rollback"), step->rollback},
                           {QStringLiteral("service"), step->service},
                           {QStringLiteral("action"), actionName(step->action)}};
        if (!step->diff.isEmpty())
            object.insert(QStringLiteral("diff"), step->diff);
        if (step->action == WorkflowStep::Action::WatchFailures)
            object.insert(QStringLiteral("watch_s"), step->watchS);
        if (!group.isEmpty())
            object.insert(QStringLiteral("parallel"), group);
        steps.append(object);
    }
    QJsonObject object{{QStringLiteral("kind"), workflowKindName(kind)},
                       {QStringLiteral("cluster"), cluster},
                       {QStringLiteral("service"), service},
                       {QStringLiteral("steps"), steps},
                       {QStringLiteral("evidence"), evidence},
                       {QStringLiteral("warnings"), QJsonArray::fromStringList(warnings)},
                       {QStringLiteral("confirm"), confirmationTarget()},
                       {QStringLiteral("production"), production},
                       {QStringLiteral("targets"), targets}};
    if (!knob.isEmpty())
        object.insert(QStringLiteral("knob"), knob);
    if (!refusal.isEmpty())
        object.insert(QStringLiteral("refusal"), refusal);
    if (!offer.isEmpty())
        object.insert(QStringLiteral("offer"), offer);
    object.insert(QStringLiteral("needs_evidence_acknowledgement"), !evidenceWarning.isEmpty());
    return object;
}

} // namespace opsdeck::workflows
