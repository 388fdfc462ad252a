#pragma once

#include "workflowjournal.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;

namespace opsdeck::workflows {
class WorkflowSession;
}

/// The header of the services: the cluster (a choice when the inventory has
/// several), its workflows (Co-restart…, Restart proxy…, Revert knob…,
/// Restore knob…; each opens the plan first), whether the inventory is
/// read-only, and a workflow that an earlier console left unfinished, with
/// Resume… and Abandon. A view of WorkflowSession; the window opens the
/// dialogs.
class ClusterActionsBar : public QWidget
{
    Q_OBJECT
public:
    explicit ClusterActionsBar(opsdeck::workflows::WorkflowSession *session,
                               QWidget *parent = nullptr);

    /// The open inventory's clusters and what they have (a proxy: Restart
    /// proxy…; a PD pair: Co-restart…); reads the unfinished workflows.
    void refresh();
    QString cluster() const;

    QPushButton *coRestartButton() const { return m_coRestart; }
    QPushButton *restartProxyButton() const { return m_restartProxy; }
    QPushButton *revertKnobButton() const { return m_revertKnob; }
    QPushButton *restoreKnobButton() const { return m_restoreKnob; }
    QPushButton *resumeButton() const { return m_resume; }
    QPushButton *abandonButton() const { return m_abandon; }
    QLabel *unfinishedLabel() const { return m_unfinished; }

Q_SIGNALS:
    /// Plan `kind` ("co-restart", ...) on `cluster`.
    void workflowRequested(const QString &kind, const QString &cluster);
    void resumeRequested(const opsdeck::workflows::WorkflowJournal::Summary &unfinished);
    void abandonRequested(const QString &id);

private:
    void showCluster();

    opsdeck::workflows::WorkflowSession *m_session;
    QLabel *m_title;
    QComboBox *m_clusters;
    QPushButton *m_coRestart;
    QPushButton *m_restartProxy;
    QPushButton *m_revertKnob;
    QPushButton *m_restoreKnob;
    QLabel *m_readOnly;
    QLabel *m_unfinished;
    QPushButton *m_resume;
    QPushButton *m_abandon;
    std::optional<opsdeck::workflows::WorkflowJournal::Summary> m_left;
};
