#include "decodebatchpanel.h"

#include "loadhistory.h"
#include "timeserieschart.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QTimer>
#include <QVBoxLayout>

namespace {
const QString running = QStringLiteral("running requests");
const QString waiting = QStringLiteral("waiting requests");
} // namespace

DecodeBatchPanel::DecodeBatchPanel(opsdeck::probes::LoadHistory *history, QWidget *parent)
    : QWidget(parent), m_history(history), m_chart(new TimeSeriesChart(this)), m_title(new QLabel),
      m_latest(new QLabel)
{
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_latest->setTextFormat(Qt::PlainText);
    m_chart->addSeries(running, QColor(0x15, 0x65, 0xc0));
    m_chart->addSeries(waiting, QColor(0xef, 0x6c, 0x00));
    m_chart->setUnit(QStringLiteral("requests"));
    m_chart->setWindowMs(history->windowMs());
    m_chart->setMinimumHeight(260);

    auto *header = new QHBoxLayout;
    header->addWidget(m_title);
    header->addStretch();
    header->addWidget(m_latest);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(header);
    layout->addWidget(m_chart, 1);

    connect(history, &opsdeck::probes::LoadHistory::sampleAppended, this,
            [this] { m_dirty = true; });
    auto *frameTimer = new QTimer(this);
    connect(frameTimer, &QTimer::timeout, this, [this] {
        if (m_dirty)
            redraw();
    });
    frameTimer->start(250);
    redraw();
}

void DecodeBatchPanel::redraw()
{
    m_dirty = false;
    const auto &samples = m_history->samples();
    const QString service = m_history->service();
    const QString source =
        samples.empty() ? QStringLiteral("no sample yet") : samples.back().source;
    m_title->setText(
        service.isEmpty()
            ? QStringLiteral("Decode batch — no decode service")
            : QStringLiteral("Decode batch — %1 (%2, last 5 min)").arg(service, source));
    QList<QPointF> runningPoints;
    QList<QPointF> waitingPoints;
    runningPoints.reserve(static_cast<qsizetype>(samples.size()));
    waitingPoints.reserve(static_cast<qsizetype>(samples.size()));
    for (const auto &sample : samples) {
        runningPoints.append({static_cast<double>(sample.timeMs), sample.running});
        waitingPoints.append({static_cast<double>(sample.timeMs), sample.waiting});
    }
    m_chart->setPoints(running, runningPoints);
    m_chart->setPoints(waiting, waitingPoints);
    if (!samples.empty())
        m_latest->setText(QStringLiteral("running %1 · waiting %2")
                              .arg(samples.back().running)
                              .arg(samples.back().waiting));
    setToolTip(
        QStringLiteral("num_running_reqs and num_queue_reqs of %1, summed over dp ranks, "
                       "read from %2 every second")
            .arg(service.isEmpty() ? QStringLiteral("the decode service") : service, source));
}

void DecodeBatchPanel::showProblem(const QString &service, const QString &reason)
{
    if (service == m_history->service())
        m_latest->setText(QStringLiteral("no reading: ") + reason);
}
