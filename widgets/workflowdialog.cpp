#include "workflowdialog.h"

#include "workflowplanview.h"
#include "workflowprogressview.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStackedWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using opsdeck::workflows::editsKnobs;
using opsdeck::workflows::WorkflowKind;
using opsdeck::workflows::WorkflowPlan;
using opsdeck::workflows::WorkflowRunner;
using opsdeck::workflows::WorkflowSession;

namespace {

} // namespace

WorkflowDialog::WorkflowDialog(WorkflowSession *session, const WorkflowSession::Request &request,
                               const QString &auditPath, QWidget *parent)
    : QDialog(parent), m_session(session), m_request(request), m_auditPath(auditPath)
{
    build();
    if (!editsKnobs(request.kind) || !request.knob.isEmpty())
        plan();
    else
        m_planView->showProblem(u"Give the knob (KEY to comment it out, KEY=VALUE to set it) and "
                                "press Plan: nothing is read or changed before."_s);
}

WorkflowDialog::WorkflowDialog(WorkflowSession *session,
                               const opsdeck::workflows::WorkflowJournal::Summary &unfinished,
                               const QString &auditPath, QWidget *parent)
    : QDialog(parent), m_session(session), m_auditPath(auditPath), m_resumeId(unfinished.id)
{
    const auto kind =
        opsdeck::workflows::workflowKindFromName(unfinished.plan.value(u"kind"_s).toString());
    m_request = {kind.value_or(WorkflowKind::Restart),
                 unfinished.plan.value(u"cluster"_s).toString(),
                 unfinished.plan.value(u"service"_s).toString(),
                 unfinished.plan.value(u"knob"_s).toString(),
                 {},
                 {},
                 false};
    build();
    m_knobRow->hide();
    m_heading->setText(u"<b>Resume workflow %1</b> — it stopped at step %2 (%3); it runs again "
                       "from step %4, after every guard again."_s.arg(
                           unfinished.id, QString::number(unfinished.lastStarted),
                           unfinished.finished ? unfinished.outcome : u"unfinished"_s,
                           QString::number(unfinished.resumeFrom())));
    plan();
}

void WorkflowDialog::build()
{
    setWindowTitle(u"Workflow: %1"_s.arg(opsdeck::workflows::workflowKindName(m_request.kind)));
    setModal(true);
    resize(980, 720);
    m_heading = new QLabel;
    m_heading->setWordWrap(true);
    m_heading->setText(u"<b>%1</b> of %2 — cluster %3"_s.arg(
        opsdeck::workflows::workflowKindName(m_request.kind),
        (m_request.service.isEmpty() ? m_request.cluster : m_request.service).toHtmlEscaped(),
        m_request.cluster.toHtmlEscaped()));
    m_knobRow = new QWidget;
    auto *knobRow = new QHBoxLayout(m_knobRow);
    knobRow->setContentsMargins(0, 0, 0, 0);
    m_knob = new QLineEdit(m_request.knob);
    m_knob->setPlaceholderText(u"KEY or KEY=VALUE"_s);
    m_backup = new QLineEdit(m_request.backup);
    m_backup->setPlaceholderText(m_request.kind == WorkflowKind::RestoreKnob
                                     ? u"backup path (default: the last revert's)"_s
                                     : u"backup path to take the value from (optional)"_s);
    m_plan = new QPushButton(u"Plan"_s);
    knobRow->addWidget(new QLabel(u"Knob"_s));
    knobRow->addWidget(m_knob, 1);
    knobRow->addWidget(new QLabel(u"Backup"_s));
    knobRow->addWidget(m_backup, 2);
    knobRow->addWidget(m_plan);
    m_knobRow->setVisible(editsKnobs(m_request.kind));

    m_drain = new QCheckBox(
        u"Drain first: remove each prefill and decode from the router and wait until its "
        "running requests reach 0 (added back once it answers)"_s);
    m_drain->setChecked(m_request.drain);
    m_drain->setVisible(m_resumeId.isEmpty() && (m_request.kind == WorkflowKind::CoRestart ||
                                                 m_request.kind == WorkflowKind::Restart));

    m_planView = new WorkflowPlanView(m_session);
    m_progress = new WorkflowProgressView;
    m_pages = new QStackedWidget;
    m_pages->addWidget(m_planView);
    m_pages->addWidget(m_progress);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_heading);
    layout->addWidget(m_knobRow);
    layout->addWidget(m_drain);
    layout->addWidget(m_pages, 1);

    connect(m_plan, &QPushButton::clicked, this, [this] {
        m_request.knob = m_knob->text().trimmed();
        m_request.backup = m_backup->text().trimmed();
        plan();
    });
    connect(m_knob, &QLineEdit::returnPressed, m_plan, &QPushButton::click);
    connect(m_drain, &QCheckBox::toggled, this, [this](bool drain) {
        m_request.drain = drain;
        plan();
    });
    connect(m_planView, &WorkflowPlanView::runRequested, this, &WorkflowDialog::run);
    connect(m_planView, &WorkflowPlanView::armRequested, m_session,
            &WorkflowSession::armForSession);
    connect(m_planView, &WorkflowPlanView::offerTaken, this,
            [this](WorkflowKind offered, const QString &service) {
                const QString kind = opsdeck::workflows::workflowKindName(offered);
                m_request = {offered, m_request.cluster, service, {}, {}, {}, false};
                m_resumeId.clear();
                m_knobRow->hide();
                m_drain->hide();
                setWindowTitle(u"Workflow: %1"_s.arg(kind));
                m_heading->setText(u"<b>%1</b> of %2 — the evidence's offer"_s.arg(
                    kind, (service.isEmpty() ? m_request.cluster : service).toHtmlEscaped()));
                plan();
            });
    connect(m_progress, &WorkflowProgressView::cancelRequested, this, [this] {
        if (m_running)
            m_session->cancel();
        else
            accept();
    });
    connect(m_progress, &WorkflowProgressView::rollbackRequested, this, &WorkflowDialog::rollback);

    connect(m_session, &WorkflowSession::planned, this,
            [this](const WorkflowPlan &plan) { m_planView->showPlan(plan); });
    connect(m_session, &WorkflowSession::planFailed, this,
            [this](const QString &error) { m_planView->showProblem(u"Cannot plan: "_s + error); });
    connect(m_session, &WorkflowSession::refused, this, [this](const QString &why) {
        if (m_pages->currentWidget() == m_planView)
            m_planView->guardLabel()->setText(u"Refused: "_s + why);
    });
    connect(m_session, &WorkflowSession::started, this,
            [this](const QString &id, const WorkflowPlan &plan, int from) {
                m_running = true;
                m_edited = false;
                m_pages->setCurrentWidget(m_progress);
                // The progress names the workflow and its id.
                m_heading->hide();
                m_knobRow->hide();
                m_drain->hide();
                m_progress->begin(id, plan, from);
            });
    connect(m_session, &WorkflowSession::stepStarted, m_progress,
            &WorkflowProgressView::stepStarted);
    connect(m_session, &WorkflowSession::stepOutput, m_progress, &WorkflowProgressView::stepOutput);
    connect(m_session, &WorkflowSession::stepFinished, this,
            [this](int n, bool ok, const QString &detail, qint64 ms) {
                // An edit step's detail: "backup PATH (sha256 ...); ..."
                if (ok && detail.startsWith(u"backup "_s))
                    m_edited = true;
                m_progress->stepFinished(n, ok, detail, ms);
            });
    connect(m_session, &WorkflowSession::finished, this,
            [this](WorkflowRunner::Outcome outcome, const QString &detail, const QString &id) {
                m_running = false;
                m_finishedId = id;
                m_progress->finish(outcome, detail, m_auditPath, m_edited);
            });
}

void WorkflowDialog::plan()
{
    m_planView->showProblem(u"planning …"_s);
    m_session->plan(m_request);
}

void WorkflowDialog::run()
{
    const auto &plan = m_planView->plan();
    if (!plan)
        return;
    if (m_resumeId.isEmpty())
        m_session->run(*plan, m_planView->confirmation());
    else
        m_session->resume(m_resumeId, m_planView->confirmation());
}

void WorkflowDialog::rollback()
{
    // Only the scripts the failed workflow edited, each from the backup it
    // made (found in its journal): the plan shows each going back.
    const auto &ran = m_planView->plan();
    if (!ran)
        return;
    m_request = {WorkflowKind::RestoreKnob,
                 ran->cluster,
                 {},
                 ran->knob.section(u'=', 0, 0),
                 {},
                 m_finishedId,
                 false};
    m_resumeId.clear();
    m_knob->setText(m_request.knob);
    m_backup->clear();
    m_backup->setPlaceholderText(u"backup path (default: the failed workflow's)"_s);
    m_knobRow->show();
    m_drain->hide();
    m_heading->show();
    m_heading->setText(u"<b>Roll back</b>: restore-knob %1 on cluster %2, from the backups the "
                       "failed workflow made"_s.arg(m_request.knob.toHtmlEscaped(),
                                                    m_request.cluster.toHtmlEscaped()));
    m_pages->setCurrentWidget(m_planView);
    m_planView->confirmEdit()->clear();
    plan();
}

void WorkflowDialog::reject()
{
    // Never leave a step running behind a closed dialog: cancel it, and
    // close once the session says it ended.
    if (m_running) {
        m_session->cancel();
        return;
    }
    QDialog::reject();
}
