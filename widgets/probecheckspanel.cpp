#include "probecheckspanel.h"

#include "batchcheckresult.h"
#include "probelab.h"
#include "timeserieschart.h"
#include "verificationresult.h"

#include <QGroupBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

using opsdeck::probes::BatchCheckResult;
using opsdeck::probes::ProbeLab;
using opsdeck::probes::VerificationResult;
using opsdeck::probes::VerificationStage;

namespace {

const QString runningSeries = QStringLiteral("decode running requests");

QString msText(double ms)
{
    return ms >= 1000 ? QStringLiteral("%1 s").arg(ms / 1000.0, 0, 'f', 2)
                      : QStringLiteral("%1 ms").arg(qRound(ms));
}

void setTone(QLabel *label, const QColor &color)
{
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, color);
    label->setPalette(palette);
}

const QColor passColor(0x2e, 0x7d, 0x32);
const QColor failColor(0xc6, 0x28, 0x28);

} // namespace

ProbeChecksPanel::ProbeChecksPanel(ProbeLab *lab, QWidget *parent)
    : QWidget(parent), m_lab(lab), m_verifyButton(new QPushButton(QStringLiteral("Verify"))),
      m_batchButton(new QPushButton(QStringLiteral("Batch check"))),
      m_cancelButton(new QPushButton(QStringLiteral("Cancel check"))), m_nBox(new QSpinBox),
      m_status(new QLabel), m_chart(new TimeSeriesChart), m_verdict(new QLabel)
{
    m_verifyButton->setToolTip(QStringLiteral(
        "Health of every service → one end-to-end chat through the router → the batch check; "
        "stops at the first failure and records the result in history"));
    m_batchButton->setToolTip(QStringLiteral(
        "N concurrent chat completions (max_tokens 128) while the decode's running requests "
        "are sampled every 250 ms: batched or serialized?"));
    m_nBox->setRange(1, 256);
    m_nBox->setValue(16);
    m_nBox->setPrefix(QStringLiteral("N = "));
    m_cancelButton->setEnabled(false);
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);

    auto *verifyBox = new QGroupBox(QStringLiteral("Staged verification"));
    auto *verifyLayout = new QVBoxLayout(verifyBox);
    auto *verifyRow = new QHBoxLayout;
    verifyRow->addWidget(m_verifyButton);
    verifyRow->addWidget(m_cancelButton);
    verifyRow->addStretch();
    verifyLayout->addLayout(verifyRow);
    // Health, end-to-end, keep-alive, batch check.
    for (int i = 0; i < 4; ++i) {
        auto *stage = new QLabel;
        stage->setWordWrap(true);
        stage->setTextFormat(Qt::PlainText);
        stage->setTextInteractionFlags(Qt::TextSelectableByMouse);
        verifyLayout->addWidget(stage);
        m_stages << stage;
    }

    auto *batchBox = new QGroupBox(QStringLiteral("Batch check"));
    auto *batchLayout = new QVBoxLayout(batchBox);
    auto *batchRow = new QHBoxLayout;
    batchRow->addWidget(m_nBox);
    batchRow->addWidget(m_batchButton);
    batchRow->addStretch();
    batchLayout->addLayout(batchRow);
    m_chart->addSeries(runningSeries, QColor(0x15, 0x65, 0xc0));
    m_chart->setUnit(QStringLiteral("requests"));
    m_chart->setWindowMs(60 * 1000);
    m_chart->setMinimumHeight(200);
    m_chart->setSourceTooltip(QStringLiteral(
        "Running requests summed over the cluster's decode services, sampled every 250 ms "
        "during the batch (/v1/loads, else /metrics)"));
    m_verdict->setWordWrap(true);
    m_verdict->setTextFormat(Qt::PlainText);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_verdict->font();
    bold.setBold(true);
    m_verdict->setFont(bold);
    m_verdict->setText(QStringLiteral("No batch check yet."));
    // The verdict above its chart: the numbers are what a person reads first.
    batchLayout->addWidget(m_verdict);
    batchLayout->addWidget(m_chart);

    // Stage details and the verdict wrap to several lines: on a laptop the
    // column scrolls rather than squeezing the chart under the text.
    auto *content = new QWidget;
    auto *layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 6, 0);
    layout->addWidget(verifyBox);
    layout->addWidget(batchBox);
    layout->addWidget(m_status);
    layout->addStretch(1);
    auto *scroll = new QScrollArea;
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);
    setMinimumWidth(400);

    connect(m_verifyButton, &QPushButton::clicked, this, &ProbeChecksPanel::verify);
    connect(m_batchButton, &QPushButton::clicked, this, &ProbeChecksPanel::batchCheck);
    connect(m_cancelButton, &QPushButton::clicked, m_lab, &ProbeLab::cancelCheck);
    connect(m_lab, &ProbeLab::checkStarted, this, [this](bool verification, int n) {
        showChecking(true);
        m_running.clear();
        m_chart->setPoints(runningSeries, m_running);
        m_chart->followLive();
        m_verdict->setText(verification ? QStringLiteral("Verification running …")
                                        : QStringLiteral("Batch check of %1 running …").arg(n));
        setTone(m_verdict, palette().color(QPalette::WindowText));
        if (verification)
            showCluster();
    });
    connect(m_lab, &ProbeLab::stageStarted, this,
            [this](int index, const VerificationStage &stage) { showStage(index, stage, true); });
    connect(m_lab, &ProbeLab::stageFinished, this,
            [this](int index, const VerificationStage &stage) { showStage(index, stage, false); });
    connect(m_lab, &ProbeLab::runningSampled, this, [this](qint64 timeMs, double running) {
        m_running.append({double(timeMs), running});
        m_chart->setPoints(runningSeries, m_running);
    });
    connect(m_lab, &ProbeLab::batchProgressed, this, [this](int finished, int n) {
        m_status->setText(QStringLiteral("%1 of %2 requests answered").arg(finished).arg(n));
    });
    connect(m_lab, &ProbeLab::batchFinished, this, &ProbeChecksPanel::showBatch);
    connect(m_lab, &ProbeLab::verificationFinished, this, &ProbeChecksPanel::showVerification);
    connect(m_lab, &ProbeLab::checkFinished, this, [this] { showChecking(false); });
    showCluster();
}

QStringList ProbeChecksPanel::stageTexts() const
{
    QStringList texts;
    for (const QLabel *stage : m_stages)
        texts << stage->text();
    return texts;
}

QString ProbeChecksPanel::verdictText() const
{
    return m_verdict->text();
}

QString ProbeChecksPanel::statusText() const
{
    return m_status->text();
}

void ProbeChecksPanel::showCluster()
{
    const QVector<VerificationStage> planned = m_lab->plannedStages();
    for (int i = 0; i < m_stages.size(); ++i) {
        const bool known = i < planned.size();
        showStage(i, known ? planned[i] : VerificationStage{}, false);
    }
    const bool ready = !m_lab->cluster().isEmpty() && !m_lab->isChecking();
    m_verifyButton->setEnabled(ready);
    m_batchButton->setEnabled(ready);
}

void ProbeChecksPanel::showStage(int index, const VerificationStage &stage, bool running)
{
    if (index < 0 || index >= m_stages.size())
        return;
    QLabel *label = m_stages[index];
    if (stage.name.isEmpty()) {
        label->setText(QString());
        return;
    }
    QString result;
    QColor tone = palette().color(QPalette::WindowText);
    if (running)
        result = QStringLiteral("running …");
    else if (!stage.ran)
        result = QStringLiteral("not run");
    else {
        result = QStringLiteral("%1 in %2: %3")
                     .arg(stage.passed      ? QStringLiteral("✓ passed")
                          : stage.cancelled ? QStringLiteral("■ cancelled")
                                            : QStringLiteral("✗ failed"),
                          msText(stage.ms), stage.detail);
        if (!stage.cancelled)
            tone = stage.passed ? passColor : failColor;
    }
    label->setText(QStringLiteral("%1. %2 — passes when %3\n    %4")
                       .arg(index + 1)
                       .arg(stage.name, stage.criterion, result));
    setTone(label, tone);
}

void ProbeChecksPanel::verify()
{
    confirmThenRun(true);
}

void ProbeChecksPanel::batchCheck()
{
    confirmThenRun(false);
}

void ProbeChecksPanel::confirmThenRun(bool verification)
{
    const int n = m_nBox->value();
    const auto run = [this, verification, n](const QString &confirmation) {
        if (verification)
            m_lab->runVerification(confirmation);
        else
            m_lab->runBatchCheck(n, confirmation);
    };
    const QStringList production = m_lab->productionServices();
    if (production.isEmpty()) {
        run({});
        return;
    }
    // Non-modal: the GUI keeps running (no nested event loop); the typed
    // name goes to the models' guard, which refuses anything but the cluster's.
    auto *dialog = new QInputDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setObjectName(QStringLiteral("productionConfirmation"));
    dialog->setWindowTitle(QStringLiteral("Production cluster"));
    dialog->setLabelText(QStringLiteral("Cluster %1 has services tagged production: %2.\n"
                                        "The %3 sends %4 concurrent chat completions through it.\n"
                                        "Type the cluster's name to go on:")
                             .arg(m_lab->cluster(), production.join(QStringLiteral(", ")),
                                  verification ? QStringLiteral("verification's batch check")
                                               : QStringLiteral("batch check"))
                             .arg(n));
    connect(dialog, &QInputDialog::textValueSelected, this, run);
    dialog->open();
}

void ProbeChecksPanel::showChecking(bool checking)
{
    const bool ready = !checking && !m_lab->cluster().isEmpty();
    m_verifyButton->setEnabled(ready);
    m_batchButton->setEnabled(ready);
    m_nBox->setEnabled(!checking);
    m_cancelButton->setEnabled(checking);
}

void ProbeChecksPanel::showBatch(const BatchCheckResult &result)
{
    // The samples the check kept are the record; the live ones were a preview.
    if (!result.samples.isEmpty() && !m_running.isEmpty()) {
        const double start = m_running.first().x() - double(result.samples.first().offsetMs);
        m_running.clear();
        for (const auto &sample : result.samples)
            m_running.append({start + double(sample.offsetMs), sample.running});
        m_chart->setPoints(runningSeries, m_running);
    }
    if (m_running.size() >= 2) {
        // Zoom onto the run: seconds long, lost in the chart's minute otherwise.
        const double span = m_running.last().x() - m_running.first().x();
        m_chart->flush();
        const double visible = double(m_chart->visibleEndMs() - m_chart->visibleStartMs());
        if (visible > 0)
            m_chart->zoomAround(m_chart->visibleEndMs(), std::max(span * 1.15, 5000.0) / visible);
    }
    if (!result.error.isEmpty()) {
        m_verdict->setText(QStringLiteral("Not measured: %1").arg(result.error));
        setTone(m_verdict, failColor);
        return;
    }
    const QString text =
        QStringLiteral("%1: %2\n%3 requests through %4 (%5) · TTFT p50 %6 · %7 failed")
            .arg(opsdeck::probes::batchVerdictName(result.verdict), result.reason)
            .arg(result.n)
            .arg(result.path, result.entryService)
            .arg(msText(result.ttftPercentileMs(0.5)))
            .arg(result.failures);
    m_verdict->setText(text);
    setTone(m_verdict,
            result.verdict == opsdeck::probes::BatchVerdict::Batched ? passColor : failColor);
}

void ProbeChecksPanel::showVerification(const VerificationResult &result)
{
    if (!result.error.isEmpty()) {
        m_status->setText(QStringLiteral("Verification not run: %1").arg(result.error));
        m_verdict->setText(QStringLiteral("No batch check ran."));
        return;
    }
    for (int i = 0; i < result.stages.size(); ++i)
        showStage(i, result.stages[i], false);
    if (result.batch.verdict != opsdeck::probes::BatchVerdict::None ||
        !result.batch.error.isEmpty())
        showBatch(result.batch);
    else
        m_verdict->setText(QStringLiteral("No batch check ran (an earlier stage failed)."));
    const int failed = result.failedStage();
    m_status->setText(result.passed
                          ? QStringLiteral("Verification of %1 passed in %2.")
                                .arg(result.cluster, msText(result.ms))
                          : QStringLiteral("Verification of %1 failed at %2.")
                                .arg(result.cluster, failed >= 0 ? result.stages[failed].name
                                                                 : QStringLiteral("cancel")));
}
