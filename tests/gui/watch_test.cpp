// The background keep-alive watch in the window, on real opsdeck-sim clusters:
// a stall already present when the inventory is opened reaches the banner
// without any click, within a minute (the delay is measured and printed); its
// length is measured; a healthy cluster gets no banner; a window on the data
// dir of a running `opsdeck-cli record` runs no second watch and shows the
// recorder's diagnoses from history.
#include "guiwatchdog.h"
#include "historystore.h"
#include "historywriter.h"
#include "keepalivewatch.h"
#include "mainwindow.h"
#include "stallcluster.h"
#include "testsupport.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <chrono>
#include <csignal>
#include <gtest/gtest.h>

using namespace opsdeck;
using namespace std::chrono_literals;
using opsdeck::test::waitUntil;

namespace {

QString writeInventory(const QTemporaryDir &dir, const QString &yaml)
{
    const QString path = dir.filePath(QStringLiteral("inventory.yaml"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(yaml.toUtf8());
    return path;
}

int diagnosisMarkers(const QString &databasePath, const QString &service)
{
    history::HistoryStore store(databasePath);
    if (!store.open())
        return 0;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    int count = 0;
    for (const history::Marker &marker : store.markers(now - 3600 * 1000, now + 60 * 1000))
        count += marker.kind == QStringLiteral("diagnosis") && marker.service == service ? 1 : 0;
    return count;
}

} // namespace

TEST(WatchWindow, AStallAlreadyPresentIsOnScreenWithinAMinuteWithoutAnyClick)
{
    test::StallCluster cluster;
    // The proxy holds every reused connection 3 s; fresh ones answer at once.
    ASSERT_TRUE(cluster.start(3.0, 0)) << cluster.error.toStdString();
    ASSERT_TRUE(cluster.waitReady(30s));
    QTemporaryDir dir;
    MainWindow window;
    window.setDataDir(dir.filePath(QStringLiteral("data")));
    test::GuiWatchdog watchdog;
    QElapsedTimer sinceOpen;
    sinceOpen.start();
    ASSERT_TRUE(window.openInventory(writeInventory(dir, cluster.inventoryYaml(true))));
    window.show();
    EXPECT_TRUE(window.session()->keepAliveWatch()->isRunning());
    EXPECT_TRUE(window.stallBannerText().isEmpty());

    // Default settings: the startup rounds, then the banner. Target <= 60 s.
    ASSERT_TRUE(waitUntil([&] { return !window.stallBannerText().isEmpty(); }, 90s));
    const double delayS = sinceOpen.elapsed() / 1000.0;
    std::printf("stall banner %.1f s after opening the inventory\n", delayS);
    RecordProperty("banner_delay_ms", int(sinceOpen.elapsed()));
    EXPECT_LE(delayS, 60.0);
    const QString banner = window.stallBannerText();
    EXPECT_TRUE(banner.startsWith(QStringLiteral("Keep-alive stall at proxy-0 — clients on kept "
                                                 "connections hang; fresh connections answer")))
        << banner.toStdString();
    // The evidence is a table: one line per path and connection, not one run-on line.
    EXPECT_TRUE(banner.contains(QStringLiteral("via proxy (proxy-0)"))) << banner.toStdString();
    EXPECT_TRUE(banner.contains(QStringLiteral("router direct (router-0)")));
    EXPECT_GE(banner.count(QLatin1Char('\n')), 5) << banner.toStdString();
    // Reused / fresh per round: the proxy's 3 s hold against an immediate answer.
    EXPECT_TRUE(
        banner.contains(QRegularExpression(QStringLiteral("\\b3[0-9]{3} ms / [0-9]{1,3} ms"))))
        << banner.toStdString();
    ASSERT_TRUE(waitUntil(
        [&] { return diagnosisMarkers(window.session()->databasePath(), QStringLiteral("proxy-0")) >= 1; },
        10s));

    // Then the stall is measured with a long deadline: about 3 s, not the timeout.
    ASSERT_TRUE(waitUntil(
        [&] { return window.stallBannerText().contains(QStringLiteral("stall measured: ")); }, 60s))
        << window.stallBannerText().toStdString();
    const auto standing = window.session()->keepAliveWatch()->diagnosis(QStringLiteral("pd"));
    ASSERT_TRUE(standing);
    EXPECT_NEAR(standing->stallS, 3.0, 0.5);
    EXPECT_LT(watchdog.worstStallMs(), 1000);
}

TEST(WatchWindow, AHealthyClusterGetsNoBannerAndAnOffWatchSendsNothing)
{
    test::StallCluster cluster;
    ASSERT_TRUE(cluster.start(0, 0)) << cluster.error.toStdString();
    ASSERT_TRUE(cluster.waitReady(30s));
    QTemporaryDir dir;
    MainWindow window;
    window.setDataDir(dir.filePath(QStringLiteral("data")));
    QSignalSpy rounds(window.session()->keepAliveWatch(), &probes::KeepAliveWatch::roundFinished);
    QSignalSpy cleared(window.session()->keepAliveWatch(), &probes::KeepAliveWatch::stallCleared);
    ASSERT_TRUE(window.openInventory(writeInventory(dir, cluster.inventoryYaml(true))));
    ASSERT_TRUE(waitUntil([&] { return cleared.size() >= 1; }, 60s));
    EXPECT_TRUE(cleared.first().at(1).toString().startsWith(
        QStringLiteral("no keep-alive stall seen in 3 rounds in which every path answered")))
        << cleared.first().at(1).toString().toStdString();
    EXPECT_GE(rounds.size(), 3);
    EXPECT_TRUE(window.stallBannerText().isEmpty());

    // watch: {enabled: false}: nothing runs.
    ASSERT_TRUE(window.openInventory(writeInventory(dir, cluster.inventoryYaml(false))));
    EXPECT_FALSE(window.session()->keepAliveWatch()->isRunning());
}

TEST(WatchWindow, AWindowOnARecordersDataDirRunsNoSecondWatchAndShowsItsDiagnoses)
{
    test::StallCluster cluster;
    ASSERT_TRUE(cluster.start(3.0, 0)) << cluster.error.toStdString();
    ASSERT_TRUE(cluster.waitReady(30s));
    QTemporaryDir dir;
    const QString dataDir = dir.filePath(QStringLiteral("data"));
    const QString inventory = writeInventory(dir, cluster.inventoryYaml(true));
    QProcess recorder;
    recorder.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    recorder.start(test::binPath(QStringLiteral("opsdeck-cli")),
                   {QStringLiteral("record"), QStringLiteral("--inventory"), inventory,
                    QStringLiteral("--data-dir"), dataDir});
    ASSERT_TRUE(recorder.waitForStarted());
    // The recorder holds the history lock before the window opens.
    ASSERT_TRUE(waitUntil(
        [&] {
            return QFile::exists(
                history::HistoryWriter::lockPath(history::HistoryStore::pathIn(dataDir)));
        },
        20s));
    MainWindow window;
    window.setDataDir(dataDir);
    ASSERT_TRUE(window.openInventory(inventory));
    EXPECT_TRUE(window.historyStatus().startsWith(QStringLiteral("history recorded by pid")))
        << window.historyStatus().toStdString();
    EXPECT_FALSE(window.session()->keepAliveWatch()->isRunning());
    // The recorder's watch diagnoses; the window reads it from history (every 5 s).
    ASSERT_TRUE(waitUntil([&] { return !window.stallBannerText().isEmpty(); }, 90s));
    EXPECT_TRUE(window.stallBannerText().startsWith(QStringLiteral("Keep-alive stall at proxy-0")))
        << window.stallBannerText().toStdString();
    EXPECT_FALSE(window.session()->keepAliveWatch()->isRunning());
    ::kill(static_cast<pid_t>(recorder.processId()), SIGTERM);
    EXPECT_TRUE(recorder.waitForFinished(20'000));
    EXPECT_EQ(recorder.exitCode(), 0);
}

TEST(WatchRecord, RecordNoWatchSendsNoProbeAndWritesNoDiagnosis)
{
    test::StallCluster cluster;
    ASSERT_TRUE(cluster.start(3.0, 0)) << cluster.error.toStdString();
    ASSERT_TRUE(cluster.waitReady(30s));
    QTemporaryDir dir;
    const QString dataDir = dir.filePath(QStringLiteral("data"));
    QProcess recorder;
    recorder.start(test::binPath(QStringLiteral("opsdeck-cli")),
                   {QStringLiteral("record"), QStringLiteral("--inventory"),
                    writeInventory(dir, cluster.inventoryYaml(true)), QStringLiteral("--data-dir"),
                    dataDir, QStringLiteral("--no-watch")});
    ASSERT_TRUE(recorder.waitForStarted());
    const QString database = history::HistoryStore::pathIn(dataDir);
    // Long enough for a watch to have diagnosed this stall (15 s in the test above).
    QElapsedTimer clock;
    clock.start();
    ASSERT_FALSE(
        waitUntil([&] { return diagnosisMarkers(database, QStringLiteral("proxy-0")) > 0; }, 25s));
    EXPECT_GE(clock.elapsed(), 25'000);
    ::kill(static_cast<pid_t>(recorder.processId()), SIGTERM);
    ASSERT_TRUE(recorder.waitForFinished(20'000));
    EXPECT_EQ(recorder.exitCode(), 0);
    history::HistoryStore store(database);
    ASSERT_TRUE(store.open());
    EXPECT_TRUE(
        store.checks(0, QDateTime::currentMSecsSinceEpoch(), QStringLiteral("watch")).isEmpty());
}
