#include "workflowrunner.h"

#include "workflowrunnerleaf.h"

#include <QTimer>
#include <spdlog/spdlog.h>

namespace opsdeck::workflows {

namespace {

// The last lines of a step's output, for its audit entry.
QString tail(const QStringList &lines)
{
    return lines.mid(std::max<qsizetype>(0, lines.size() - 5)).join(QStringLiteral(" | "));
}

} // namespace

QString WorkflowRunner::outcomeName(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Succeeded:
        return QStringLiteral("succeeded");
    case Outcome::Failed:
        return QStringLiteral("failed");
    case Outcome::Cancelled:
        return QStringLiteral("cancelled");
    }
    return {};
}

WorkflowRunner::WorkflowRunner(Context context, QObject *parent)
    : QObject(parent), m_context(std::move(context))
{
}

WorkflowRunner::~WorkflowRunner()
{
    // Nothing may call back into a runner that is gone.
    for (const auto &leaf : std::as_const(m_running)) {
        leaf->ended = true;
        if (leaf->cancelAction)
            leaf->cancelAction();
    }
}

void WorkflowRunner::run(const WorkflowPlan &plan, WorkflowJournal journal,
                         const Confirmation &confirmation, int from)
{
    m_plan = plan;
    m_journal = std::move(journal);
    m_from = std::max(1, from);
    history::AuditEntry entry;
    entry.kind = QStringLiteral("workflow");
    entry.host = m_plan.cluster;
    entry.action = m_from > 1 ? QStringLiteral("resume") : QStringLiteral("run");
    entry.workflow = m_journal->id();
    entry.detail =
        QStringLiteral("workflow %1 (%2 of %3)%4, confirmed by typing \"%5\"%6%7:\n%8")
            .arg(m_journal->id(), workflowKindName(m_plan.kind), m_plan.confirmationTarget(),
                 m_from > 1 ? QStringLiteral(" from step %1").arg(m_from) : QString(),
                 confirmation.typed,
                 confirmation.reason.isEmpty() ? QString()
                                               : QStringLiteral(", reason: ") + confirmation.reason,
                 confirmation.despiteEvidence ? QStringLiteral(", going ahead despite the evidence")
                                              : QString(),
                 m_plan.text());
    // The plan's entry is on disk before the first step starts.
    m_context.audit(entry, [this](bool ok, const QString &error) {
        if (!ok) {
            m_failure = QStringLiteral("the audit entry of the plan could not be written (%1): "
                                       "nothing was run")
                            .arg(error);
            return finish(false);
        }
        runNode(m_plan.root, [this](bool ok) { finish(ok); });
    });
}

void WorkflowRunner::cancel()
{
    if (m_finished || m_cancelled)
        return;
    m_cancelled = true;
    const auto running = m_running;
    for (const auto &leaf : running)
        endLeaf(leaf, false, QStringLiteral("cancelled by the operator"));
}

void WorkflowRunner::runNode(const WorkflowStep &node, Done done)
{
    switch (node.mode) {
    case WorkflowStep::Mode::Action:
        if (node.n < m_from)
            return done(true); // ran before the resume point
        return runLeaf(node, std::move(done));
    case WorkflowStep::Mode::Sequence:
        return runSequence(node, 0, std::move(done));
    case WorkflowStep::Mode::Parallel:
        return runParallel(node, std::move(done));
    }
}

void WorkflowRunner::runSequence(const WorkflowStep &node, int index, Done done)
{
    if (index >= node.children.size())
        return done(true);
    if (m_cancelled)
        return done(false);
    const WorkflowStep &child = node.children.at(index);
    runNode(child, [this, &node, &child, index, done](bool ok) {
        if (!ok && (child.onError == WorkflowStep::OnError::Stop || m_cancelled))
            return done(false);
        runSequence(node, index + 1, done);
    });
}

void WorkflowRunner::runParallel(const WorkflowStep &node, Done done)
{
    if (node.children.isEmpty())
        return done(true);
    auto remaining = std::make_shared<qsizetype>(node.children.size());
    auto allOk = std::make_shared<bool>(true);
    for (const WorkflowStep &child : node.children) {
        runNode(child, [remaining, allOk, &child, done](bool ok) {
            *allOk = *allOk && (ok || child.onError == WorkflowStep::OnError::Continue);
            if (--*remaining == 0)
                done(*allOk);
        });
    }
}

void WorkflowRunner::runLeaf(const WorkflowStep &step, Done done)
{
    if (m_cancelled || m_finished)
        return done(false);
    auto leaf = std::make_shared<Leaf>();
    leaf->step = &step;
    leaf->done = std::move(done);
    leaf->service = m_context.inventory.service(step.service);
    QString error;
    if (!m_journal->append({{QStringLiteral("event"), QStringLiteral("step-start")},
                            {QStringLiteral("n"), step.n}},
                           &error)) {
        if (m_failure.isEmpty())
            m_failure = QStringLiteral("step %1 not started: %2").arg(step.n).arg(error);
        return leaf->done(false);
    }
    m_running.append(leaf);
    history::AuditEntry entry;
    entry.kind = QStringLiteral("workflow");
    entry.host = step.host;
    entry.action = QStringLiteral("step-start");
    entry.workflow = m_journal->id();
    entry.detail = QStringLiteral("workflow %1 step %2. %3: %4")
                       .arg(m_journal->id())
                       .arg(step.n)
                       .arg(step.title, step.commands.join(QStringLiteral("; ")));
    // Only once its entry is on disk does the step act.
    m_context.audit(entry, [this, leaf](bool ok, const QString &error) {
        if (leaf->ended)
            return;
        if (!ok)
            return endLeaf(leaf, false,
                           QStringLiteral("its audit entry could not be written (%1): nothing "
                                          "was done")
                               .arg(error));
        Q_EMIT stepStarted(leaf->step->n, leaf->step->title);
        leaf->clock.start();
        if (leaf->step->deadlineS > 0) {
            leaf->deadline = new QTimer(this);
            leaf->deadline->setSingleShot(true);
            connect(leaf->deadline, &QTimer::timeout, this, [this, leaf] {
                endLeaf(leaf, false,
                        QStringLiteral("not done within its deadline of %1 s%2")
                            .arg(leaf->step->deadlineS)
                            .arg(leaf->lastSeen.isEmpty()
                                     ? QString()
                                     : QStringLiteral(" (last: %1)").arg(leaf->lastSeen)));
            });
            leaf->deadline->start(leaf->step->deadlineS * 1000);
        }
        act(leaf);
    });
}

void WorkflowRunner::act(const std::shared_ptr<Leaf> &leaf)
{
    using Action = WorkflowStep::Action;
    const Action action = leaf->step->action;
    if (action != Action::CheckBootstrap && action != Action::RouterReady &&
        action != Action::Verify && action != Action::Marker && action != Action::WatchFailures &&
        !leaf->service)
        return endLeaf(
            leaf, false,
            QStringLiteral("service %1 is not in the inventory").arg(leaf->step->service));
    switch (action) {
    case Action::None:
        return endLeaf(leaf, true, QString());
    case Action::CheckBootstrap:
        return checkBootstrap(leaf, false);
    case Action::Stop:
        return stopService(leaf);
    case Action::WaitExited:
        return waitExited(leaf);
    case Action::Start:
        return startService(leaf);
    case Action::WaitHealthy:
        return waitHealthy(leaf);
    case Action::WaitBootstrap:
        return checkBootstrap(leaf, true);
    case Action::RouterReady:
        return waitRouterReady(leaf);
    case Action::Verify:
        return verify(leaf);
    case Action::WatchFailures:
        return watchFailures(leaf);
    case Action::EditKnob:
        return editKnob(leaf);
    case Action::Marker:
        return addMarker(leaf);
    case Action::Drain:
        return drain(leaf);
    case Action::Register:
        return registerWorker(leaf);
    }
}

void WorkflowRunner::endLeaf(const std::shared_ptr<Leaf> &leaf, bool ok, const QString &detail)
{
    if (leaf->ended)
        return;
    leaf->ended = true;
    if (leaf->deadline)
        leaf->deadline->deleteLater();
    if (leaf->cancelAction)
        leaf->cancelAction();
    m_running.removeOne(leaf);
    const qint64 ms = leaf->clock.isValid() ? leaf->clock.elapsed() : 0;
    const WorkflowStep &step = *leaf->step;
    QString why;
    const bool journaled = m_journal->append({{QStringLiteral("event"), QStringLiteral("step-end")},
                                              {QStringLiteral("n"), step.n},
                                              {QStringLiteral("ok"), ok},
                                              {QStringLiteral("ms"), ms},
                                              {QStringLiteral("detail"), detail}},
                                             &why);
    history::AuditEntry entry;
    entry.kind = QStringLiteral("workflow");
    entry.host = step.host;
    entry.action = ok ? QStringLiteral("step-done") : QStringLiteral("step-failed");
    entry.workflow = m_journal->id();
    entry.markerId = leaf->markerId;
    entry.detail =
        QStringLiteral("workflow %1 step %2. %3: %4 in %5 ms%6")
            .arg(m_journal->id())
            .arg(step.n)
            .arg(step.title, detail.isEmpty() ? QStringLiteral("done") : detail)
            .arg(ms)
            .arg(leaf->output.isEmpty() ? QString()
                                        : QStringLiteral("; output: ") + tail(leaf->output));
    m_context.audit(entry, [this, leaf, ok, detail, ms, journaled, why](bool written,
                                                                        const QString &error) {
        bool passed = ok && journaled && written;
        QString said = detail;
        if (!journaled)
            said += QStringLiteral(" (%1)").arg(why);
        if (!written)
            said += QStringLiteral(" (its audit entry could not be written: %1)").arg(error);
        if (!passed && m_failure.isEmpty())
            m_failure =
                QStringLiteral("step %1. %2: %3").arg(leaf->step->n).arg(leaf->step->title, said);
        Q_EMIT stepFinished(leaf->step->n, passed, said, ms);
        leaf->done(passed);
    });
}

void WorkflowRunner::finish(bool ok)
{
    if (m_finished)
        return;
    m_finished = true;
    const Outcome outcome =
        ok ? Outcome::Succeeded : (m_cancelled ? Outcome::Cancelled : Outcome::Failed);
    const QString detail = ok ? QStringLiteral("every step passed") : m_failure;
    QString why;
    if (m_journal && !m_journal->append({{QStringLiteral("event"), QStringLiteral("end")},
                                         {QStringLiteral("outcome"), outcomeName(outcome)},
                                         {QStringLiteral("detail"), detail}},
                                        &why))
        spdlog::error("workflow: {}", why.toStdString());
    history::AuditEntry entry;
    entry.kind = QStringLiteral("workflow");
    entry.host = m_plan.cluster;
    entry.action = outcomeName(outcome);
    entry.workflow = m_journal ? m_journal->id() : QString();
    entry.detail = QStringLiteral("workflow %1 (%2 of %3): %4")
                       .arg(m_journal ? m_journal->id() : QString(), workflowKindName(m_plan.kind),
                            m_plan.confirmationTarget(), detail);
    m_context.audit(entry, [this, outcome, detail](bool written, const QString &error) {
        Q_EMIT finished(outcome, written ? detail
                                         : detail + QStringLiteral(" (its last audit entry could "
                                                                   "not be written: %1)")
                                                        .arg(error));
    });
}

} // namespace opsdeck::workflows
