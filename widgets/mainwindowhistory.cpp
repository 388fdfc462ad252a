// MainWindow's history: the writer and its lock, the preload, markers and
// past ranges. Views only: reading and writing are models/history's.
#include "alertthread.h"
#include "apppaths.h"
#include "checkjson.h"
#include "historyrangeloader.h"
#include "historyrecorder.h"
#include "historystore.h"
#include "historywriter.h"
#include "hotwindow.h"
#include "keepalivewatch.h"
#include "mainwindow.h"
#include "metricsdashboard.h"
#include "pollerthread.h"
#include "probelab.h"
#include "probelabpanel.h"
#include "stallbanner.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLockFile>
#include <QStackedWidget>
#include <QStatusBar>
#include <spdlog/spdlog.h>

using namespace opsdeck;

namespace {

// HotWindow's span: what a restart shows at once.
double preloadHours(const history::HotWindow &window)
{
    return double(window.settings().windowMs) / 3600000.0;
}

QString spanText(qint64 spanMs)
{
    return QStringLiteral("%1 h").arg(double(spanMs) / 3600000.0);
}

} // namespace

QString MainWindow::historyDir() const
{
    // A demo's history lives in its folder, where `opsdeck-cli demo up`'s
    // recorder writes it too: the two share one lock.
    if (m_demoState != DemoState::None && !m_demoDir.isEmpty())
        return m_demoDir;
    return settings::AppPaths::dataDir(m_dataDir);
}

QString MainWindow::databasePath() const
{
    return m_writer ? m_writer->databasePath() : QString();
}

bool MainWindow::isRecordingHistory() const
{
    return m_writer && m_writer->isRecording();
}

QString MainWindow::historyStatus() const
{
    return m_historyLabel->text();
}

void MainWindow::openHistory(const QString &databasePath)
{
    const QString path = QFileInfo(databasePath).absoluteFilePath();
    if (m_writer && m_writer->databasePath() == path)
        return; // the same database: its points are in the hot window already
    delete m_recorder;
    m_recorder = nullptr;
    if (m_writer)
        m_writer->stop();
    m_writer = std::make_unique<history::HistoryWriter>(path);
    connect(m_writer.get(), &history::HistoryWriter::writeFailed, this,
            [this](const QString &error) {
                spdlog::error("history: {}", error.toStdString());
                statusBar()->showMessage(error, 10000);
            });
    tryRecording();
    m_store = std::make_unique<history::HistoryStore>(path);
    if (!m_store->open()) {
        spdlog::error("history not readable: {}", m_store->lastError().toStdString());
        statusBar()->showMessage(m_store->lastError(), 10000);
    } else {
        QElapsedTimer timer;
        timer.start();
        const qint64 points = m_hotWindow->preload(*m_store, preloadHours(*m_hotWindow),
                                                   QDateTime::currentMSecsSinceEpoch());
        spdlog::info("history: {} points of the last {} h loaded from {} in {} ms", points,
                     preloadHours(*m_hotWindow), path.toStdString(), timer.elapsed());
    }
    // The writer drops samples while another process records; the hot window
    // fills either way.
    m_recorder =
        new history::HistoryRecorder(m_poller->poller(), m_writer.get(), m_hotWindow, this);
    m_probeLab->setHistory(m_writer.get(), path);
}

void MainWindow::tryRecording()
{
    if (!m_writer || m_writer->isRecording())
        return;
    QString error;
    if (m_writer->start(&error)) {
        m_historyLabel->setText(QStringLiteral("Recording history"));
        m_historyLabel->setToolTip(m_writer->databasePath());
        spdlog::info("history: recording into {}", m_writer->databasePath().toStdString());
        startOrFollowWatch(false); // taking over from a recorder that stopped: watch too
        return;
    }
    QLockFile lock(history::HistoryWriter::lockPath(m_writer->databasePath()));
    qint64 pid = 0;
    QString host;
    QString program;
    const QString text = lock.getLockInfo(&pid, &host, &program)
                             ? QStringLiteral("history recorded by pid %1").arg(pid)
                             : QStringLiteral("history not recorded");
    if (m_historyLabel->text() != text)
        spdlog::warn("history: {}", error.toStdString());
    m_historyLabel->setText(text);
    m_historyLabel->setToolTip(error);
}

void MainWindow::startOrFollowWatch(bool restart)
{
    if (!m_inventory)
        return;
    m_watch->setDatabasePath(databasePath());
    if (isRecordingHistory()) {
        if (restart || !m_watch->isRunning())
            m_watch->start(m_hosts->routed());
    } else {
        // One watch per data dir: the recorder's; its diagnoses come from history.
        m_watch->stop();
        showRecordedDiagnoses();
    }
}

void MainWindow::showRecordedDiagnoses()
{
    if (m_watch->isRunning() || !m_store || !m_store->isOpen() || !m_inventory)
        return;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    // The newest `watch` row per cluster within the hour says whether a stall stands.
    QHash<QString, QByteArray> newest;
    for (const history::CheckRecord &check :
         m_store->checks(now - 3'600'000, now + 60'000, QStringLiteral("watch")))
        newest.insert(check.cluster, check.json);
    for (auto it = newest.cbegin(); it != newest.cend(); ++it) {
        const QJsonValue stall =
            QJsonDocument::fromJson(it.value()).object().value(QStringLiteral("stall"));
        if (stall.isObject())
            m_stallBanner->showStall(it.key(), probes::diagnosisFromJson(stall.toObject()));
        else
            m_stallBanner->clearStall(it.key());
    }
}

void MainWindow::refreshMarkers()
{
    if (!m_store || !m_store->isOpen())
        return;
    showRecordedDiagnoses();
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const qint64 span = m_rangeMs > 0 ? m_rangeMs : m_hotWindow->settings().windowMs;
    // One indexed query (markers_by_time) of a small table: cheap on this thread.
    QVector<ChartMarker> markers;
    for (const history::Marker &m : m_store->markers(now - span, now + 60000))
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
    if (spanMs <= 0 || !m_inventory) {
        m_rangeMs = 0;
        m_dashboards->setCurrentWidget(m_dashboard);
        m_rangeLabel->setText(QString());
        refreshMarkers();
        return;
    }
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    m_rangeLabel->setText(QStringLiteral("reading the last %1 from %2 …")
                              .arg(spanText(spanMs), m_rangeLoader->sourceName()));
    m_rangeLoader->load(now - spanMs, now);
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
    if (m_inventory)
        dashboard->setInventory(*m_inventory);
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

void MainWindow::stopBackgroundWork()
{
    // Probes and checks end before the processes they probe go away.
    m_probeLab->stop();
    m_watch->stop();
    m_probeLab->cancelCheck();
    m_alerts.reset();
    m_poller.reset();
    // Results the poller queued before it stopped reach the writer (only the
    // recorder's own queued calls run here, no other event), then the final flush.
    if (m_recorder)
        QCoreApplication::sendPostedEvents(m_recorder, QEvent::MetaCall);
    if (m_writer)
        m_writer->stop();
}
