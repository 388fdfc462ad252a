#include "workflowplanview.h"

#include "workflowguard.h"
#include "workflowsession.h"

#include <QCheckBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using opsdeck::workflows::WorkflowPlan;
using opsdeck::workflows::WorkflowSession;

namespace {

// The warning colours of the window's banners.
void paintWarning(QLabel *label)
{
    QPalette palette = label->palette();
    palette.setColor(QPalette::Window, QColor(0xff, 0xf3, 0xe0));
    palette.setColor(QPalette::WindowText, QColor(0x8a, 0x4b, 0x00));
    label->setPalette(palette);
    label->setAutoFillBackground(true);
    label->setContentsMargins(8, 6, 8, 6);
    label->setWordWrap(true);
}

} // namespace

WorkflowPlanView::WorkflowPlanView(WorkflowSession *session, QWidget *parent)
    : QWidget(parent), m_session(session), m_evidence(new QGroupBox(u"Evidence"_s)),
      m_evidenceLines(new QLabel), m_warning(new QLabel), m_offer(new QPushButton),
      m_text(new QPlainTextEdit), m_confirmLabel(new QLabel), m_confirm(new QLineEdit),
      m_reasonLabel(new QLabel(u"Reason"_s)), m_reason(new QLineEdit), m_acknowledge(new QCheckBox),
      m_guard(new QLabel), m_armLabel(new QLabel), m_armEdit(new QLineEdit),
      m_arm(new QPushButton(u"Arm for this session"_s)), m_run(new QPushButton(u"Run"_s))
{
    auto *evidence = new QVBoxLayout(m_evidence);
    m_evidenceLines->setWordWrap(true);
    m_evidenceLines->setTextInteractionFlags(Qt::TextSelectableByMouse);
    paintWarning(m_warning);
    m_warning->setObjectName(u"evidenceWarning"_s);
    evidence->addWidget(m_evidenceLines);
    evidence->addWidget(m_warning);
    evidence->addWidget(m_offer, 0, Qt::AlignLeft);

    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    auto *guard = new QGroupBox(u"Confirm"_s);
    auto *form = new QFormLayout(guard);
    form->addRow(m_confirmLabel, m_confirm);
    m_reason->setPlaceholderText(u"why, for the audit log (required for production)"_s);
    form->addRow(m_reasonLabel, m_reason);
    m_acknowledge->setText(u"I have read the evidence warning and go ahead all the same"_s);
    form->addRow(m_acknowledge);
    m_guard->setWordWrap(true);
    m_guard->setObjectName(u"guardLabel"_s);

    auto *buttons = new QHBoxLayout;
    // Read-only inventories are armed here, typed like every other guard.
    buttons->addWidget(m_armLabel);
    buttons->addWidget(m_armEdit);
    buttons->addWidget(m_arm);
    buttons->addStretch(1);
    m_run->setDefault(false);
    m_run->setAutoDefault(false);
    buttons->addWidget(m_run);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_evidence);
    layout->addWidget(m_text, 1);
    layout->addWidget(guard);
    // Room for a refusal of three lines: what to do is never clipped.
    m_guard->setMinimumHeight(m_guard->fontMetrics().lineSpacing() * 3 + 4);
    m_guard->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    layout->addWidget(m_guard);
    layout->addLayout(buttons);

    connect(m_confirm, &QLineEdit::textChanged, this, &WorkflowPlanView::updateGuard);
    connect(m_reason, &QLineEdit::textChanged, this, &WorkflowPlanView::updateGuard);
    connect(m_acknowledge, &QCheckBox::toggled, this, &WorkflowPlanView::updateGuard);
    connect(m_run, &QPushButton::clicked, this, &WorkflowPlanView::runRequested);
    connect(m_arm, &QPushButton::clicked, this, [this] { Q_EMIT armRequested(m_armEdit->text()); });
    connect(m_offer, &QPushButton::clicked, this, [this] {
        if (m_plan && m_plan->offerKind)
            Q_EMIT offerTaken(*m_plan->offerKind, m_plan->offerService);
    });
    connect(session, &WorkflowSession::armedChanged, this, &WorkflowPlanView::updateGuard);
    showProblem(u"planning …"_s);
}

void WorkflowPlanView::showPlan(const WorkflowPlan &plan)
{
    m_plan = plan;
    m_text->setPlainText(plan.text());
    m_evidenceLines->setText(plan.evidenceLines.isEmpty() ? u"no evidence recorded"_s
                                                          : plan.evidenceLines.join(u'\n'));
    m_warning->setText(plan.evidenceWarning);
    m_warning->setVisible(!plan.evidenceWarning.isEmpty());
    if (plan.offerKind)
        m_offer->setText(u"Plan %1 instead"_s.arg(
            opsdeck::workflows::workflowKindName(*plan.offerKind) +
            (plan.offerService.isEmpty() ? QString() : u" "_s + plan.offerService)));
    m_offer->setVisible(plan.offerKind.has_value());
    m_acknowledge->setVisible(!plan.evidenceWarning.isEmpty());
    m_acknowledge->setChecked(false);
    m_confirmLabel->setText(u"Type <b>%1</b>"_s.arg(plan.confirmationTarget().toHtmlEscaped()));
    m_confirm->setPlaceholderText(u"the name in bold, typed"_s);
    m_reasonLabel->setVisible(plan.production);
    m_reason->setVisible(plan.production);
    updateGuard();
}

void WorkflowPlanView::showProblem(const QString &text)
{
    m_plan.reset();
    m_text->setPlainText(text);
    m_evidenceLines->setText(u"-"_s);
    m_warning->hide();
    m_offer->hide();
    m_acknowledge->hide();
    m_reasonLabel->hide();
    m_reason->hide();
    m_confirmLabel->setText(u"Type"_s);
    updateGuard();
}

opsdeck::workflows::Confirmation WorkflowPlanView::confirmation() const
{
    return {m_confirm->text(), m_reason->text(), m_acknowledge->isChecked()};
}

void WorkflowPlanView::updateGuard()
{
    const QString refusal =
        m_plan ? m_session->refusal(*m_plan, confirmation()) : u"no plan to run"_s;
    m_run->setEnabled(refusal.isEmpty());
    m_run->setToolTip(refusal.isEmpty() ? u"Run the plan above, step by step"_s : refusal);
    m_guard->setText(refusal.isEmpty() ? u"Ready: every guard passed."_s
                                       : u"Not yet: "_s + refusal);
    const bool readOnly = !m_session->armed();
    m_armLabel->setVisible(readOnly);
    m_armEdit->setVisible(readOnly);
    m_arm->setVisible(readOnly);
    m_armLabel->setText(u"Read-only inventory: type <b>%1</b> to arm it for this session"_s.arg(
        m_session->armingConfirmation().toHtmlEscaped()));
    m_armEdit->setPlaceholderText(m_session->armingConfirmation());
    m_arm->setToolTip(u"The inventory says armed: false. Arming lets workflows restart and edit "
                      "its services until it is closed; the arming is audited."_s);
}
