// The console's history, alerts and Prometheus wiring on real processes,
// offscreen: opsdeck-sim services polled by the window, a history database
// in a temporary data dir, a real Prometheus for the history range.
#include "alertcenter.h"
#include "corrupthistory.h"
#include "decodebatchpanel.h"
#include "historystore.h"
#include "historywriter.h"
#include "hotwindow.h"
#include "mainwindow.h"
#include "metricsdashboard.h"
#include "prometheusprocess.h"
#include "seriespanel.h"
#include "simprocess.h"
#include "testsupport.h"
#include "timeserieschart.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <cstdio>
#include <gtest/gtest.h>

using namespace opsdeck;
using namespace std::chrono_literals;
using test::engineInventory;
using test::simArgs;
using test::SimProcess;
using test::waitUntil;
using test::writeInventory;

namespace {

/// Closes the window the way a person does and waits until it has stopped.
void closeAndWait(MainWindow &window)
{
    QSignalSpy finished(&window, &MainWindow::shutdownFinished);
    window.close();
    if (finished.isEmpty()) {
        ASSERT_TRUE(finished.wait(10000));
    }
}

} // namespace

TEST(MainWindowHistory, ReopeningShowsTheEarlierPointsBeforeTheFirstNewPoll)
{
    SimProcess engine;
    ASSERT_TRUE(engine.start(simArgs(QStringLiteral("engine"))))
        << engine.errorText().toStdString();
    QTemporaryDir dir;
    const QString dataDir = dir.filePath(QStringLiteral("data"));
    const QString inventory = writeInventory(dir, engineInventory(engine));

    qint64 lastRecordedMs = 0;
    {
        MainWindow window;
        window.setDataDir(dataDir);
        ASSERT_TRUE(window.openInventory(inventory)) << window.bannerText().toStdString();
        EXPECT_TRUE(window.session()->isRecordingHistory()) << window.historyStatus().toStdString();
        EXPECT_EQ(window.session()->databasePath(), history::HistoryStore::pathIn(dataDir));
        ASSERT_TRUE(waitUntil(
            [&] {
                return window.session()->hotWindow()->points(u"engine"_qs, u"up"_qs).size() >= 3;
            },
            15s));
        lastRecordedMs =
            window.session()->hotWindow()->points(u"engine"_qs, u"up"_qs).constLast().timeMs;
        closeAndWait(window); // flushes: the writer's interval (5 s) has not passed
    }
    engine.stop(); // nothing new can be polled now

    MainWindow reopened;
    reopened.setDataDir(dataDir);
    ASSERT_TRUE(reopened.openInventory(inventory));
    // No event has run since openInventory(): every point is from the database.
    const auto up = reopened.session()->hotWindow()->points(u"engine"_qs, u"up"_qs);
    ASSERT_GE(up.size(), 3);
    EXPECT_GE(up.constLast().timeMs, lastRecordedMs) << "the last poll before closing was kept";
    EXPECT_EQ(up.constLast().value, 1.0) << "the engine was healthy";
    EXPECT_FALSE(
        reopened.session()->hotWindow()->points(u"engine"_qs, u"health_latency_ms"_qs).isEmpty());

    // Without `prometheus:` the hour range is read from the same database.
    QSignalSpy loaded(&reopened, &MainWindow::historyRangeLoaded);
    reopened.showHistoryRange(3600 * 1000);
    ASSERT_TRUE(loaded.wait(10000));
    ASSERT_TRUE(loaded.first().at(0).toBool()) << loaded.first().at(1).toString().toStdString();
    ASSERT_NE(reopened.rangeWindow(), nullptr);
    EXPECT_GE(reopened.rangeWindow()->points(u"engine"_qs, u"up"_qs).size(), 3);
    EXPECT_TRUE(reopened.isShowingRange());
    reopened.showHistoryRange(0);
    EXPECT_FALSE(reopened.isShowingRange());
    closeAndWait(reopened);
}

TEST(MainWindowHistory, AFullHourOfSixtySeriesIsPreloadedWhole)
{
    // What a restart after an hour of the demo finds: 60 series at 1 s.
    QTemporaryDir dir;
    const QString dataDir = dir.filePath(QStringLiteral("data"));
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    {
        history::HistoryWriter writer(history::HistoryStore::pathIn(dataDir));
        QString error;
        ASSERT_TRUE(writer.start(&error)) << error.toStdString();
        for (int series = 0; series < 60; ++series)
            for (qint64 t = now - 3600 * 1000 + 1000; t <= now; t += 1000)
                writer.append(QStringLiteral("engine"), QStringLiteral("key%1").arg(series),
                              QStringLiteral("requests"), t, double(t % 7));
        ASSERT_TRUE(writer.flush());
    }
    QTemporaryFile inventory(QDir::tempPath() + QStringLiteral("/opsdeck-XXXXXX.yaml"));
    ASSERT_TRUE(inventory.open());
    // A closed port: no poll adds to what was preloaded.
    inventory.write("hosts: [{name: local, kind: local}]\nservices:\n"
                    "  - {name: engine, role: engine, host: local, url: 'http://127.0.0.1:9'}\n");
    inventory.close();

    MainWindow window;
    window.setDataDir(dataDir);
    QElapsedTimer timer;
    timer.start();
    ASSERT_TRUE(window.openInventory(inventory.fileName()));
    const qint64 openMs = timer.elapsed();
    // Measured, not asserted (speed claims belong to benchmarks): printed for the README.
    std::printf("openInventory with 60 series x 3600 points to preload: %lld ms\n",
                static_cast<long long>(openMs));
    for (int series = 0; series < 60; ++series) {
        const auto points = window.session()->hotWindow()->points(
            QStringLiteral("engine"), QStringLiteral("key%1").arg(series));
        ASSERT_EQ(points.size(), 3600) << series;
        EXPECT_EQ(points.constLast().timeMs, now);
        EXPECT_EQ(points.constFirst().timeMs, now - 3600 * 1000 + 1000);
    }
    closeAndWait(window);
}

TEST(MainWindowHistory, AnotherWriterHoldingTheLockLeavesTheWindowReadingOnly)
{
    SimProcess engine;
    ASSERT_TRUE(engine.start(simArgs(QStringLiteral("engine"))))
        << engine.errorText().toStdString();
    QTemporaryDir dir;
    const QString dataDir = dir.filePath(QStringLiteral("data"));
    auto other = std::make_unique<history::HistoryWriter>(history::HistoryStore::pathIn(dataDir));
    QString error;
    ASSERT_TRUE(other->start(&error)) << error.toStdString();

    MainWindow window;
    window.setDataDir(dataDir);
    ASSERT_TRUE(window.openInventory(writeInventory(dir, engineInventory(engine))));
    EXPECT_FALSE(window.session()->isRecordingHistory());
    EXPECT_EQ(window.historyStatus(),
              QStringLiteral("history recorded by pid %1").arg(QCoreApplication::applicationPid()));
    // The charts still fill live.
    ASSERT_TRUE(waitUntil(
        [&] { return window.session()->hotWindow()->points(u"engine"_qs, u"up"_qs).size() >= 2; },
        15s));
    // Nothing of this window's reached the database.
    {
        history::HistoryStore store(history::HistoryStore::pathIn(dataDir));
        ASSERT_TRUE(store.open());
        EXPECT_TRUE(store.seriesList().isEmpty());
    }
    // When the other writer goes, the window takes over (it retries every 5 s).
    other.reset();
    ASSERT_TRUE(waitUntil([&] { return window.session()->isRecordingHistory(); }, 12s));
    EXPECT_EQ(window.historyStatus(), QStringLiteral("Recording history"));
    closeAndWait(window);
}

TEST(MainWindowHistory, AStuckSchedulerShowsInTheBannerAndClears)
{
    SimProcess engine;
    ASSERT_TRUE(engine.start(test::stuckEngineArgs())) << engine.errorText().toStdString();
    QTemporaryDir dir;
    MainWindow window;
    window.setDataDir(dir.filePath(QStringLiteral("data")));
    window.show();
    ASSERT_TRUE(window.openInventory(writeInventory(
        dir, engineInventory(engine, {},
                             QStringLiteral("alerts:\n  e2e_interval_s: 0\n  rules:\n"
                                            "    - {kind: scheduler_stuck, service: engine, "
                                            "for_s: 2}\n")))))
        << window.bannerText().toStdString();
    EXPECT_TRUE(window.bannerText().isEmpty()) << window.bannerText().toStdString();

    QNetworkAccessManager network;
    network.setProxy(QNetworkProxy::NoProxy);
    const QVector<QNetworkReply *> requests = test::sendChats(network, engine, 3);
    ASSERT_TRUE(waitUntil([&] { return !window.session()->alertCenter()->isEmpty(); }, 20s));
    const QString banner = window.bannerText();
    EXPECT_TRUE(banner.contains(QStringLiteral("engine: 3 requests waiting and none running")))
        << banner.toStdString();

    for (QNetworkReply *reply : requests)
        reply->abort();
    ASSERT_TRUE(waitUntil([&] { return window.session()->alertCenter()->isEmpty(); }, 20s));
    EXPECT_TRUE(window.bannerText().isEmpty()) << window.bannerText().toStdString();
    qDeleteAll(requests);
    closeAndWait(window);
}

TEST(MainWindowHistory, MarkersInTheDatabaseAppearOnEveryChart)
{
    SimProcess engine;
    ASSERT_TRUE(engine.start(simArgs(QStringLiteral("engine"))))
        << engine.errorText().toStdString();
    QTemporaryDir dir;
    const QString dataDir = dir.filePath(QStringLiteral("data"));
    MainWindow window;
    window.setDataDir(dataDir);
    window.show();
    ASSERT_TRUE(window.openInventory(writeInventory(dir, engineInventory(engine))));

    // Written by another store, as later workflows and `opsdeck-cli marker add` do.
    history::HistoryStore store(history::HistoryStore::pathIn(dataDir));
    ASSERT_TRUE(store.open());
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    ASSERT_TRUE(store.addMarker({0, now - 20000, QStringLiteral("restart"),
                                 QStringLiteral("decode restarted"), QString(), QString()}));
    ASSERT_TRUE(
        store.addMarker({0, now - 3 * 3600 * 1000, QStringLiteral("knob"),
                         QStringLiteral("too old for the live span"), QString(), QString()}));
    // The 5 s refresh picks it up; wait for it, a chart each.
    const auto everyChartHasIt = [&] {
        for (SeriesPanel *panel : window.dashboard()->panels()) {
            panel->chart()->flush();
            if (panel->chart()->markerCount() != 1)
                return false;
        }
        return true;
    };
    ASSERT_TRUE(waitUntil(everyChartHasIt, 10s));
    // The decode batch chart shows live data, so the marker is in view and labelled.
    ASSERT_TRUE(waitUntil(
        [&] {
            window.decodePanel()->chart()->flush();
            return window.decodePanel()->chart()->visibleMarkerLabels().join(u' ').contains(
                QStringLiteral("decode restarted"));
        },
        10s));
    closeAndWait(window);
}

TEST(MainWindowHistory, TheHourRangeIsReadFromPrometheusAndItsFailureNamesTheServer)
{
    SimProcess engine, traffic;
    ASSERT_TRUE(engine.start(simArgs(QStringLiteral("engine"))))
        << engine.errorText().toStdString();
    ASSERT_TRUE(
        traffic.start({QStringLiteral("--role"), QStringLiteral("traffic"),
                       QStringLiteral("--target"), engine.url(), QStringLiteral("--clients"),
                       QStringLiteral("4"), QStringLiteral("--max-tokens"), QStringLiteral("32"),
                       QStringLiteral("--idle-gap-ms"), QStringLiteral("20")}))
        << traffic.errorText().toStdString();
    test::PrometheusProcess prometheus;
    ASSERT_TRUE(prometheus.start({QStringLiteral("127.0.0.1:%1").arg(engine.port())}))
        << prometheus.errorText().toStdString();
    QTemporaryDir dir;
    MainWindow window;
    window.setDataDir(dir.filePath(QStringLiteral("data")));
    window.show();
    ASSERT_TRUE(window.openInventory(writeInventory(
        dir, engineInventory(engine, QStringLiteral("prometheus: %1\n").arg(prometheus.url())))));

    // Until Prometheus has scraped a few times, the hour holds no running requests.
    QSignalSpy loaded(&window, &MainWindow::historyRangeLoaded);
    ASSERT_TRUE(waitUntil(
        [&] {
            loaded.clear();
            window.showHistoryRange(3600 * 1000);
            if (!loaded.wait(15000) || !loaded.first().at(0).toBool())
                return false;
            return window.rangeWindow() &&
                   window.rangeWindow()->points(u"engine"_qs, u"running"_qs).size() >= 3;
        },
        40s))
        << window.statusBar()->currentMessage().toStdString();
    EXPECT_TRUE(window.isShowingRange());
    EXPECT_EQ(window.rangeSelector()->currentText(), QStringLiteral("1 h"));
    // Each chart says the range it shows, not "Live, up to the last 60 min".
    const QString subtitle = window.rangeDashboard()->decodePanel()->chart()->statusText();
    EXPECT_TRUE(subtitle.startsWith(QStringLiteral("last 1 h to ")) &&
                subtitle.contains(QStringLiteral(" from Prometheus at 127.0.0.1:")))
        << subtitle.toStdString();
    EXPECT_EQ(window.dashboard()->decodePanel()->chart()->statusText().left(4),
              QStringLiteral("Live"));
    const auto running = window.rangeWindow()->points(u"engine"_qs, u"running"_qs);
    EXPECT_TRUE(std::any_of(running.begin(), running.end(), [](const history::Sample &s) {
        return s.value > 0;
    })) << "traffic keeps the engine busy";
    EXPECT_FALSE(window.rangeWindow()->points(u"engine"_qs, u"live_running"_qs).isEmpty())
        << "the decode batch panel reads live_running";

    // Prometheus down: the status bar names it, the live charts go on.
    const QString server = QStringLiteral("127.0.0.1:%1").arg(prometheus.port());
    prometheus.stop();
    loaded.clear();
    window.showHistoryRange(6 * 3600 * 1000);
    ASSERT_TRUE(loaded.wait(20000));
    EXPECT_FALSE(loaded.first().at(0).toBool());
    EXPECT_TRUE(loaded.first().at(1).toString().contains(server))
        << loaded.first().at(1).toString().toStdString();
    EXPECT_TRUE(window.statusBar()->currentMessage().contains(server))
        << window.statusBar()->currentMessage().toStdString();
    EXPECT_FALSE(window.isShowingRange());
    const qsizetype before = window.session()->hotWindow()->points(u"engine"_qs, u"up"_qs).size();
    EXPECT_TRUE(waitUntil(
        [&] {
            return window.session()->hotWindow()->points(u"engine"_qs, u"up"_qs).size() > before;
        },
        5s));
    closeAndWait(window);
}

// A corrupt history.sqlite in the data dir: the window says so in a red bar,
// records nothing and leaves the file; its button moves it aside and records
// into a new one.
TEST(MainWindowHistory, ACorruptDatabaseIsShownAndItsButtonStartsANewOne)
{
    SimProcess engine;
    ASSERT_TRUE(engine.start(simArgs(QStringLiteral("engine"))))
        << engine.errorText().toStdString();
    QTemporaryDir dir;
    const QString dataDir = dir.filePath(QStringLiteral("data"));
    const QString database = history::HistoryStore::pathIn(dataDir);
    const QByteArray corrupted = test::writeCorruptHistory(database);
    ASSERT_FALSE(corrupted.isEmpty());
    MainWindow window;
    window.setDataDir(dataDir);
    ASSERT_TRUE(window.openInventory(writeInventory(dir, engineInventory(engine))));
    EXPECT_FALSE(window.session()->isRecordingHistory());
    EXPECT_TRUE(window.session()->isHistoryCorrupt());
    EXPECT_TRUE(window.historyProblemText().contains(QStringLiteral("corrupt")))
        << window.historyProblemText().toStdString();
    EXPECT_TRUE(window.historyStatus().contains(QStringLiteral("NOT recorded")))
        << window.historyStatus().toStdString();
    QFile file(database);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_EQ(file.readAll(), corrupted);
    file.close();

    window.recoverHistoryButton()->click();
    EXPECT_TRUE(window.historyProblemText().isEmpty());
    EXPECT_TRUE(window.session()->isRecordingHistory()) << window.historyStatus().toStdString();
    EXPECT_EQ(QDir(dataDir).entryList({QStringLiteral("history.sqlite.corrupt-*")}).size(), 1);
    ASSERT_TRUE(waitUntil(
        [&] { return !window.session()->hotWindow()->points(u"engine"_qs, u"up"_qs).isEmpty(); },
        15s));
    closeAndWait(window);
}
