#pragma once

#include "workflowplan.h"
#include "workflowrunner.h"

#include <QElapsedTimer>
#include <QHash>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTimer;
class QTreeWidget;
class QTreeWidgetItem;

/// The running and finished pages of the workflow dialog: one row per step
/// (number, title, host, state, elapsed time, live while it runs), the
/// steps' streaming output, and the result: the outcome, the journal's id,
/// where the audit entries and markers are, and what is safe to do next
/// (Roll back when a serve script was edited). A view of WorkflowSession's
/// signals.
class WorkflowProgressView : public QWidget
{
    Q_OBJECT
public:
    explicit WorkflowProgressView(QWidget *parent = nullptr);

    /// A new run of `plan` (steps before `from` are shown as done earlier).
    void begin(const QString &id, const opsdeck::workflows::WorkflowPlan &plan, int from);
    void stepStarted(int n, const QString &title);
    void stepOutput(int n, const QString &line);
    void stepFinished(int n, bool ok, const QString &detail, qint64 ms);
    /// `auditPath`: the log the entries went to; `rollback`: a restore of the
    /// edited scripts can be offered.
    void finish(opsdeck::workflows::WorkflowRunner::Outcome outcome, const QString &detail,
                const QString &auditPath, bool rollback);

    QTreeWidget *steps() const { return m_steps; }
    QPlainTextEdit *output() const { return m_output; }
    QLabel *resultLabel() const { return m_result; }
    QPushButton *cancelButton() const { return m_cancel; }
    QPushButton *rollbackButton() const { return m_rollback; }
    /// The text of step `n`'s state column ("running", "ok", "FAILED", ...).
    QString stateOf(int n) const;

Q_SIGNALS:
    void cancelRequested();
    void rollbackRequested();

private:
    void tick();

    QLabel *m_title;
    QTreeWidget *m_steps;
    QPlainTextEdit *m_output;
    QLabel *m_result;
    QPushButton *m_cancel;
    QPushButton *m_rollback;
    QTimer *m_ticker; ///< the running steps' elapsed time, every 0.5 s
    QHash<int, QTreeWidgetItem *> m_items;
    QHash<int, QElapsedTimer> m_running;
    QString m_id;
};
