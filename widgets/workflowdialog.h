#pragma once

#include "workflowjournal.h"
#include "workflowsession.h"

#include <QDialog>

class QLabel;
class QLineEdit;
class QPushButton;
class QStackedWidget;
class WorkflowPlanView;
class WorkflowProgressView;

/// A workflow from the window, in the order the CLI takes it: the plan with
/// the evidence (WorkflowPlanView), the guard, then the live progress and
/// the result (WorkflowProgressView). Revert-knob and restore-knob first ask
/// for the knob (KEY or KEY=VALUE) and, optionally, a backup. A workflow
/// that did not end well left by an earlier console is resumed the same way:
/// its plan made again, shown and confirmed. Closing the dialog while a step
/// runs cancels it first. Opened with open(), never exec().
class QCheckBox;

class WorkflowDialog : public QDialog
{
    Q_OBJECT
public:
    WorkflowDialog(opsdeck::workflows::WorkflowSession *session,
                   const opsdeck::workflows::WorkflowSession::Request &request,
                   const QString &auditPath, QWidget *parent = nullptr);
    /// Resumes `unfinished` (from WorkflowSession::unfinished()).
    WorkflowDialog(opsdeck::workflows::WorkflowSession *session,
                   const opsdeck::workflows::WorkflowJournal::Summary &unfinished,
                   const QString &auditPath, QWidget *parent = nullptr);

    WorkflowPlanView *planView() const { return m_planView; }
    WorkflowProgressView *progressView() const { return m_progress; }
    QLineEdit *knobEdit() const { return m_knob; }
    QLineEdit *backupEdit() const { return m_backup; }
    QPushButton *planButton() const { return m_plan; }
    /// restart / co-restart: drain the engines through the router first
    /// (planned again when ticked).
    QCheckBox *drainBox() const { return m_drain; }
    bool isRunning() const { return m_running; }

    /// Escape, the window's close button: cancels a running step first (the
    /// dialog stays until the session says the workflow ended).
    void reject() override;

private:
    void build();
    void plan();
    void run();
    void rollback();

    opsdeck::workflows::WorkflowSession *m_session;
    opsdeck::workflows::WorkflowSession::Request m_request;
    QString m_auditPath;
    QString m_resumeId;   ///< set: Run resumes this workflow
    QString m_finishedId; ///< the last workflow that finished here (Roll back undoes it)
    bool m_running = false;
    bool m_edited = false; ///< this run changed a serve script (a backup was made)
    QLabel *m_heading;
    QWidget *m_knobRow;
    QLineEdit *m_knob;
    QLineEdit *m_backup;
    QPushButton *m_plan;
    QCheckBox *m_drain;
    QStackedWidget *m_pages;
    WorkflowPlanView *m_planView;
    WorkflowProgressView *m_progress;
};
