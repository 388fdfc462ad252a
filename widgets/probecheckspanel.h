#pragma once

#include <QList>
#include <QPointF>
#include <QVector>
#include <QWidget>

class QLabel;
class QPushButton;
class QSpinBox;
class TimeSeriesChart;

namespace opsdeck::probes {
class ProbeLab;
struct BatchCheckResult;
struct VerificationResult;
struct VerificationStage;
} // namespace opsdeck::probes

/// The probe lab's checks: "Verify" (health → one end-to-end chat → batch
/// check; each stage with its pass criterion, result and time, stopping at
/// the first failure) and "Batch check" (N concurrent chat completions, a
/// chart of the decode's running requests over the run, the verdict with its
/// numbers). A cluster with production services asks for its name first
/// (a non-modal dialog; the typed text goes to the models' guard, which
/// decides). Only views ProbeLab. Thread: GUI thread.
class ProbeChecksPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ProbeChecksPanel(opsdeck::probes::ProbeLab *lab, QWidget *parent = nullptr);

    QPushButton *verifyButton() const { return m_verifyButton; }
    QPushButton *batchButton() const { return m_batchButton; }
    QPushButton *cancelButton() const { return m_cancelButton; }
    QSpinBox *batchSizeBox() const { return m_nBox; }
    TimeSeriesChart *runningChart() const { return m_chart; }
    /// The three stage lines as shown ("1. health — ...\npassed in 12 ms: ...").
    QStringList stageTexts() const;
    QString verdictText() const;
    QString statusText() const;
    /// Points of the running-requests chart of the last or current batch.
    qsizetype runningPointCount() const { return m_running.size(); }

    /// What the buttons do: ask for confirmation when needed, then run.
    void verify();
    void batchCheck();
    /// Shows the current cluster's planned stages (after a cluster change).
    void showCluster();

private:
    void confirmThenRun(bool verification);
    void showStage(int index, const opsdeck::probes::VerificationStage &stage, bool running);
    void showBatch(const opsdeck::probes::BatchCheckResult &result);
    void showVerification(const opsdeck::probes::VerificationResult &result);
    void showChecking(bool checking);

    opsdeck::probes::ProbeLab *m_lab;
    QPushButton *m_verifyButton;
    QPushButton *m_batchButton;
    QPushButton *m_cancelButton;
    QSpinBox *m_nBox;
    QLabel *m_status;
    QVector<QLabel *> m_stages;
    TimeSeriesChart *m_chart;
    QLabel *m_verdict;
    QList<QPointF> m_running;
};
