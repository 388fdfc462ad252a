// The console against the demo cluster, offscreen: every card turns healthy,
// the decode chart gets points while traffic runs, and closing the window
// stops every process the demo started.
#include "decodebatchpanel.h"
#include "loadhistory.h"
#include "logdock.h"
#include "mainwindow.h"
#include "servicecard.h"
#include "servicespanel.h"
#include "servicestatusmodel.h"
#include "testsupport.h"
#include "timeserieschart.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <csignal>
#include <gtest/gtest.h>

using namespace opsdeck;
using opsdeck::test::processAlive;
using opsdeck::test::waitUntil;

namespace {

QVector<qint64> pidsIn(const QString &runDir)
{
    QVector<qint64> pids;
    for (const QFileInfo &info :
         QDir(runDir).entryInfoList({QStringLiteral("*.pid")}, QDir::Files)) {
        QFile file(info.absoluteFilePath());
        if (file.open(QIODevice::ReadOnly))
            pids.append(file.readAll().trimmed().toLongLong());
    }
    return pids;
}

} // namespace

TEST(DemoWindow, WatchesTheDemoClusterAndStopsItOnClose)
{
    QTemporaryDir dir;
    demo::DemoOptions options;
    options.dir = dir.path() + QStringLiteral("/demo");
    options.simBinary = test::binPath(QStringLiteral("opsdeck-sim"));
    options.trafficClients = 8;

    auto *window = new MainWindow;
    QSignalSpy started(window, &MainWindow::demoStarted);
    window->startDemo(options);
    window->show();
    ASSERT_TRUE(started.wait(60000)) << "demo did not finish starting";
    ASSERT_TRUE(started.first().at(0).toBool()) << started.first().at(1).toString().toStdString();

    ServicesPanel *panel = window->servicesPanel();
    ASSERT_EQ(panel->cardCount(), 4);
    // The platform adds " — OpsDeck" (the display name): the title itself must not.
    EXPECT_FALSE(window->windowTitle().contains(QStringLiteral("OpsDeck")))
        << window->windowTitle().toStdString();
    EXPECT_TRUE(window->windowTitle().endsWith(QStringLiteral("inventory.yaml")))
        << window->windowTitle().toStdString();
    ASSERT_TRUE(waitUntil(
        [&] {
            for (int row = 0; row < panel->cardCount(); ++row)
                if (panel->card(row)->status().state != probes::ServiceState::Healthy)
                    return false;
            return true;
        },
        std::chrono::seconds(20)));
    for (int row = 0; row < panel->cardCount(); ++row)
        EXPECT_TRUE(panel->card(row)->status().latencyMs.has_value());

    // The traffic generator makes decode's batch non-empty; the chart shows it.
    ASSERT_TRUE(waitUntil(
        [&] {
            const auto &samples = window->session()->loadHistory()->samples();
            return samples.size() >= 3 && std::any_of(samples.begin(), samples.end(),
                                                      [](const auto &s) { return s.running > 0; });
        },
        std::chrono::seconds(30)));
    ASSERT_TRUE(waitUntil(
        [&] {
            return window->decodePanel()->chart()->pointCount(QStringLiteral("running requests")) >=
                   3;
        },
        std::chrono::seconds(5)));

    const QVector<qint64> pids = pidsIn(options.dir + QStringLiteral("/run"));
    ASSERT_EQ(pids.size(), 5) << "prefill, decode, router, proxy and traffic";
    for (qint64 pid : pids)
        EXPECT_TRUE(processAlive(pid)) << pid;

    // A sim that dies: its card turns down, the log says so, the rest stay healthy.
    QFile decodePid(options.dir + QStringLiteral("/run/decode.pid"));
    ASSERT_TRUE(decodePid.open(QIODevice::ReadOnly));
    const qint64 decode = decodePid.readAll().trimmed().toLongLong();
    ASSERT_EQ(::kill(static_cast<pid_t>(decode), SIGKILL), 0);
    const auto decodeCard = [&]() -> const probes::ServiceStatus & {
        for (int row = 0; row < panel->cardCount(); ++row)
            if (panel->card(row)->status().name == QStringLiteral("decode"))
                return panel->card(row)->status();
        return panel->card(0)->status();
    };
    ASSERT_TRUE(waitUntil([&] { return decodeCard().state == probes::ServiceState::Down; },
                          std::chrono::seconds(10)));
    EXPECT_TRUE(window->logDock()->text().contains(QStringLiteral("decode: healthy -> down")))
        << window->logDock()->text().toStdString();
    for (int row = 0; row < panel->cardCount(); ++row) {
        if (panel->card(row)->status().name != QStringLiteral("decode")) {
            EXPECT_EQ(panel->card(row)->status().state, probes::ServiceState::Healthy);
        }
    }

    QSignalSpy shutdown(window, &MainWindow::shutdownFinished);
    window->close();
    ASSERT_TRUE(shutdown.wait(30000)) << "closing did not finish stopping the demo";
    for (qint64 pid : pids)
        EXPECT_FALSE(processAlive(pid)) << "pid " << pid << " outlived the window";
    delete window;
}

TEST(DemoWindow, BadInventoryShowsWhereAndKeepsRunning)
{
    QTemporaryFile file(QDir::tempPath() + QStringLiteral("/opsdeck-XXXXXX.yaml"));
    ASSERT_TRUE(file.open());
    file.write("services:\n  - name: decode\n    role: decoder\n");
    file.close();
    MainWindow window;
    window.show();
    EXPECT_FALSE(window.openInventory(file.fileName()));
    const QString banner = window.bannerText();
    EXPECT_TRUE(banner.contains(file.fileName() + QStringLiteral(":3:"))) << banner.toStdString();
    EXPECT_TRUE(banner.contains(QStringLiteral("decoder"))) << banner.toStdString();
    EXPECT_TRUE(window.isVisible());
    EXPECT_EQ(window.servicesPanel()->cardCount(), 0);
}

// Thousands of errors (the breaker's 54 KB file had about 4,000) must not
// grow the banner and the window without bound: the first ten, then a count.
TEST(DemoWindow, ThousandsOfInventoryErrorsShowTheFirstTenAndACount)
{
    QTemporaryFile file(QDir::tempPath() + QStringLiteral("/opsdeck-XXXXXX.yaml"));
    ASSERT_TRUE(file.open());
    QByteArray yaml = "hosts:\n";
    for (int i = 0; i < 2000; ++i)
        yaml += "  - {name: h" + QByteArray::number(i) + ", kind: bogus}\n";
    file.write(yaml);
    file.close();
    MainWindow window;
    window.show();
    EXPECT_FALSE(window.openInventory(file.fileName()));
    const QString banner = window.bannerText();
    EXPECT_EQ(banner.count(file.fileName() + QLatin1Char(':')), 10) << banner.toStdString();
    EXPECT_TRUE(banner.contains(QStringLiteral("more errors"))) << banner.toStdString();
    EXPECT_LT(window.height(), 1300) << "the banner stretched the window";
}
