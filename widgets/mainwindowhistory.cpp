// MainWindow's history: markers and past ranges. Views only: reading and
// writing are the session's (models/session, models/history).
#include "historyrangeloader.h"
#include "hotwindow.h"
#include "mainwindow.h"
#include "metricsdashboard.h"
#include "probelabpanel.h"

#include <QComboBox>
#include <QDateTime>
#include <QLabel>
#include <QStackedWidget>
#include <QStatusBar>
#include <spdlog/spdlog.h>

using namespace opsdeck;

namespace {

QString spanText(qint64 spanMs)
{
    return QStringLiteral("%1 h").arg(double(spanMs) / 3600000.0);
}

} // namespace

void MainWindow::refreshMarkers()
{
    m_session->refreshRecordedDiagnoses();
    QVector<ChartMarker> markers;
    for (const history::Marker &m : m_session->markers(m_rangeMs))
        markers.append(
            {m.timeMs, m.kind,
             m.service.isEmpty() ? m.text : QStringLiteral("%1 (%2)").arg(m.text, m.service)});
    m_dashboard->setMarkers(markers);
    m_probeLabPanel->setMarkers(markers);
    if (m_rangeDashboard)
        m_rangeDashboard->setMarkers(markers);
}

bool MainWindow::isShowingRange() const
{
    return m_rangeDashboard && m_dashboards->currentWidget() == m_rangeDashboard;
}

void MainWindow::showHistoryRange(qint64 spanMs)
{
    m_rangeMs = spanMs;
    const int index = m_rangeBox->findData(spanMs);
    if (index >= 0 && m_rangeBox->currentIndex() != index)
        m_rangeBox->setCurrentIndex(index);
    if (spanMs <= 0 || !m_session->inventory()) {
        m_rangeMs = 0;
        m_dashboards->setCurrentWidget(m_dashboard);
        m_rangeLabel->setText(QString());
        refreshMarkers();
        return;
    }
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    m_rangeLabel->setText(QStringLiteral("reading the last %1 from %2 …")
                              .arg(spanText(spanMs), m_session->rangeLoader()->sourceName()));
    m_session->rangeLoader()->load(now - spanMs, now);
}

void MainWindow::rangeLoaded(const history::RangeResult &result)
{
    const qint64 span = result.toMs - result.fromMs;
    if (!result.ok) {
        // The live charts keep going; the error names the server or the file.
        const QString text = QStringLiteral("History range not read: %1").arg(result.error);
        spdlog::warn("{}", text.toStdString());
        statusBar()->showMessage(text, 15000);
        m_rangeLabel->setText(text);
        m_rangeMs = 0;
        m_rangeBox->setCurrentIndex(0);
        m_dashboards->setCurrentWidget(m_dashboard);
        Q_EMIT historyRangeLoaded(false, result.error);
        return;
    }
    history::HotWindow::Settings settings;
    settings.windowMs = span;
    // Room for every point the loader sends (it reduces each series to maxPointsPerSeries).
    settings.periodMs =
        std::max<qint64>(1, span / (2 * history::HistoryRangeLoader::maxPointsPerSeries));
    auto *window = new history::HotWindow(settings, this);
    qint64 points = 0;
    for (const history::RangeSeries &series : result.series) {
        for (const history::Sample &sample : series.points)
            window->append(series.series.service, series.series.key, sample.timeMs, sample.value);
        points += series.points.size();
    }
    auto *dashboard = new MetricsDashboard(window);
    if (m_session->inventory())
        dashboard->setInventory(*m_session->inventory());
    dashboard->setWindowMs(span);
    if (m_rangeDashboard) {
        m_dashboards->removeWidget(m_rangeDashboard);
        m_rangeDashboard->deleteLater();
        m_rangeWindow->deleteLater();
    }
    m_rangeDashboard = dashboard;
    m_rangeWindow = window;
    m_dashboards->addWidget(dashboard);
    m_dashboards->setCurrentWidget(dashboard);
    m_rangeLabel->setText(QStringLiteral("last %1 from %2 · %3 series, %4 points")
                              .arg(spanText(span), result.source)
                              .arg(result.series.size())
                              .arg(points));
    dashboard->setRangeText(
        QStringLiteral("last %1 to %2 from %3")
            .arg(spanText(span),
                 QDateTime::fromMSecsSinceEpoch(result.toMs).toString(QStringLiteral("HH:mm")),
                 result.source));
    refreshMarkers();
    Q_EMIT historyRangeLoaded(true, QString());
}
