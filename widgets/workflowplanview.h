#pragma once

#include "workflowplan.h"

#include <QWidget>
#include <optional>

class QCheckBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace opsdeck::workflows {
class WorkflowSession;
struct Confirmation;
} // namespace opsdeck::workflows

/// The first page of the workflow dialog: the evidence (the latest stall
/// diagnosis and its age, the decode's running and waiting requests, the
/// last verification) with the evidence warning and the workflow it offers
/// instead; the numbered plan with each knob diff; the guard (the target's
/// name typed, a reason for production, the acknowledgement of the warning).
/// Run is enabled only when WorkflowSession::refusal() is empty, and the
/// label under it says why otherwise. A view: the session decides.
class WorkflowPlanView : public QWidget
{
    Q_OBJECT
public:
    explicit WorkflowPlanView(opsdeck::workflows::WorkflowSession *session,
                              QWidget *parent = nullptr);

    void showPlan(const opsdeck::workflows::WorkflowPlan &plan);
    void showProblem(const QString &text);
    /// Re-checks the guard (after arming, or as the operator types).
    void updateGuard();
    const std::optional<opsdeck::workflows::WorkflowPlan> &plan() const { return m_plan; }
    opsdeck::workflows::Confirmation confirmation() const;

    QLineEdit *confirmEdit() const { return m_confirm; }
    QLineEdit *reasonEdit() const { return m_reason; }
    QCheckBox *acknowledgeBox() const { return m_acknowledge; }
    QPushButton *runButton() const { return m_run; }
    QPushButton *armButton() const { return m_arm; }
    QLineEdit *armEdit() const { return m_armEdit; }
    QPushButton *offerButton() const { return m_offer; }
    QLabel *guardLabel() const { return m_guard; }
    QLabel *warningLabel() const { return m_warning; }
    QPlainTextEdit *planText() const { return m_text; }

Q_SIGNALS:
    void runRequested();
    /// The operator asks to arm the inventory for this session, having typed `typed`.
    void armRequested(const QString &typed);
    /// The evidence's offer taken: plan `kind` (of `service`, for a
    /// restart) on the cluster instead.
    void offerTaken(opsdeck::workflows::WorkflowKind kind, const QString &service);

private:
    opsdeck::workflows::WorkflowSession *m_session;
    std::optional<opsdeck::workflows::WorkflowPlan> m_plan;
    QGroupBox *m_evidence;
    QLabel *m_evidenceLines;
    QLabel *m_warning;
    QPushButton *m_offer;
    QPlainTextEdit *m_text;
    QLabel *m_confirmLabel;
    QLineEdit *m_confirm;
    QLabel *m_reasonLabel;
    QLineEdit *m_reason;
    QCheckBox *m_acknowledge;
    QLabel *m_guard;
    QLabel *m_armLabel;
    QLineEdit *m_armEdit;
    QPushButton *m_arm;
    QPushButton *m_run;
};
