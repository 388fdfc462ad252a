// Bad input against the console: a window watching one good opsdeck-sim
// engine and one misbehaving server per BadHttpServer mode (garbage,
// truncated, 100 MB, non-UTF-8 metrics, headers a byte a second, never
// answers). Each bad service gets its own state and reason, the good one
// keeps being refreshed, memory stays bounded, and a watchdog thread fails
// the test when the GUI thread stalls for more than 1 s.
#include "badhttpserver.h"
#include "guiwatchdog.h"
#include "loadhistory.h"
#include "mainwindow.h"
#include "servicestatusmodel.h"
#include "simprocess.h"
#include "testsupport.h"

#include <QDateTime>
#include <QFile>
#include <QTemporaryDir>
#include <QTimer>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <mutex>
#include <thread>

using namespace opsdeck;
using opsdeck::test::BadHttpServer;
using opsdeck::test::GuiWatchdog;
using opsdeck::test::waitUntil;

namespace {

using Clock = std::chrono::steady_clock;

/// Resident memory of this process, bytes (VmRSS of /proc/self/status).
qint64 residentBytes()
{
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmRSS:") {
            qint64 kib = 0;
            status >> kib;
            return kib * 1024;
        }
        status.ignore(4096, '\n');
    }
    return 0;
}

QString serviceName(BadHttpServer::Mode mode)
{
    return QStringLiteral("bad-") + QString::fromStdString(BadHttpServer::modeName(mode));
}

int rowOf(const probes::ServiceStatusModel &model, const QString &name)
{
    for (int row = 0; row < model.rowCount(); ++row)
        if (model.status(row).name == name)
            return row;
    return -1;
}

} // namespace

/// The window, the servers and what was observed of them over 20 s.
class BadInput : public ::testing::Test
{
protected:
    const std::vector<BadHttpServer::Mode> modes{
        BadHttpServer::Mode::Garbage,     BadHttpServer::Mode::Truncated,
        BadHttpServer::Mode::HugeBody,    BadHttpServer::Mode::NonUtf8Metrics,
        BadHttpServer::Mode::SlowHeaders, BadHttpServer::Mode::Silent};

    /// Starts everything, watches for `observeMs`, fills the members below.
    void watchFor(qint64 observeMs)
    {
        std::map<BadHttpServer::Mode, QString> urls;
        for (const auto mode : modes) {
            servers.push_back(std::make_unique<BadHttpServer>(mode));
            ASSERT_TRUE(servers.back()->start()) << BadHttpServer::modeName(mode);
            urls[mode] = QString::fromStdString(servers.back()->url());
        }
        ASSERT_TRUE(good.start({QStringLiteral("--role"), QStringLiteral("engine"),
                                QStringLiteral("--port"), QStringLiteral("0"),
                                QStringLiteral("--ready-delay"), QStringLiteral("0")}))
            << good.errorText().toStdString();

        // The non-UTF-8 service comes first: it is the decode panel's service,
        // so its load (read from the bad page) is visible in loadHistory().
        QByteArray yaml = "hosts:\n  - {name: local, kind: local}\nservices:\n";
        const auto serviceLine = [](const QString &name, const QString &url) {
            return QStringLiteral("  - {name: %1, role: decode, host: local, url: '%2'}\n")
                .arg(name, url)
                .toUtf8();
        };
        yaml += serviceLine(serviceName(BadHttpServer::Mode::NonUtf8Metrics),
                            urls[BadHttpServer::Mode::NonUtf8Metrics]);
        yaml += serviceLine(QStringLiteral("good"), good.url());
        for (const auto mode : modes)
            if (mode != BadHttpServer::Mode::NonUtf8Metrics)
                yaml += serviceLine(serviceName(mode), urls[mode]);
        const QString inventoryPath = dir.filePath(QStringLiteral("inventory.yaml"));
        QFile file(inventoryPath);
        ASSERT_TRUE(file.open(QIODevice::WriteOnly));
        file.write(yaml);
        file.close();

        window = std::make_unique<MainWindow>();
        window->show();
        watchdog = std::make_unique<GuiWatchdog>();
        rssBefore = residentBytes();
        rssPeak = rssBefore;
        ASSERT_TRUE(window->openInventory(inventoryPath)) << window->bannerText().toStdString();
        const probes::ServiceStatusModel &model = *window->session()->statusModel();
        goodRow = rowOf(model, QStringLiteral("good"));
        ASSERT_GE(goodRow, 0);

        // Every service checked at least once (the slow and silent ones after
        // the poller's 2 s deadline).
        ASSERT_TRUE(waitUntil(
            [&] {
                for (int row = 0; row < model.rowCount(); ++row)
                    if (!model.status(row).lastCheck.isValid())
                        return false;
                return true;
            },
            std::chrono::seconds(15)));

        // Observe: the good service's checks keep coming, memory is sampled.
        QTimer sampler;
        QObject::connect(&sampler, &QTimer::timeout, &sampler, [&] {
            const qint64 last = model.status(goodRow).lastCheck.toMSecsSinceEpoch();
            if (goodChecks.empty() || last != goodChecks.back())
                goodChecks.push_back(last);
            rssPeak = std::max(rssPeak, residentBytes());
        });
        sampler.start(100);
        const qint64 from = QDateTime::currentMSecsSinceEpoch();
        waitUntil([&] { return QDateTime::currentMSecsSinceEpoch() - from >= observeMs; },
                  std::chrono::milliseconds(observeMs + 5000));
        sampler.stop();
        observedUntil = QDateTime::currentMSecsSinceEpoch();
        std::printf("GUI worst stall %lld ms (heartbeat 20 ms); RSS %lld MB -> peak %lld MB\n",
                    static_cast<long long>(watchdog->worstStallMs()),
                    static_cast<long long>(rssBefore >> 20), static_cast<long long>(rssPeak >> 20));
    }

    const probes::ServiceStatus &statusOf(BadHttpServer::Mode mode) const
    {
        const probes::ServiceStatusModel &model = *window->session()->statusModel();
        const int row = rowOf(model, serviceName(mode));
        EXPECT_GE(row, 0);
        return model.status(std::max(row, 0));
    }

    std::vector<std::unique_ptr<BadHttpServer>> servers;
    test::SimProcess good;
    QTemporaryDir dir;
    std::unique_ptr<MainWindow> window;
    std::unique_ptr<GuiWatchdog> watchdog;
    int goodRow = -1;
    std::vector<qint64> goodChecks; ///< ms since the epoch of each new lastCheck of `good`
    qint64 observedUntil = 0;
    qint64 rssBefore = 0;
    qint64 rssPeak = 0;
};

TEST_F(BadInput, EachBadServiceHasItsOwnErrorAndTheRestKeepsRunning)
{
    ASSERT_NO_FATAL_FAILURE(watchFor(20000));
    const probes::ServiceStatusModel &model = *window->session()->statusModel();

    EXPECT_LT(watchdog->worstStallMs(), 1000) << "the GUI thread stalled";
    EXPECT_EQ(model.status(goodRow).state, probes::ServiceState::Healthy)
        << model.status(goodRow).detail.toStdString();
    ASSERT_GE(goodChecks.size(), 10u) << "the good service was not refreshed every second";
    qint64 worstGap = observedUntil - goodChecks.back();
    for (std::size_t i = 1; i < goodChecks.size(); ++i)
        worstGap = std::max(worstGap, goodChecks[i] - goodChecks[i - 1]);
    EXPECT_LT(worstGap, 3000) << "the good service went " << worstGap << " ms without a check";

    for (const auto mode : modes) {
        const probes::ServiceStatus &status = statusOf(mode);
        std::printf("%-26s %-9s %s\n", serviceName(mode).toUtf8().constData(),
                    probes::stateName(status.state).toUtf8().constData(),
                    status.detail.toUtf8().constData());
        EXPECT_FALSE(status.detail.isEmpty()) << serviceName(mode).toStdString();
    }
    // No HTTP answer at all: down, with the reason.
    EXPECT_EQ(statusOf(BadHttpServer::Mode::Garbage).state, probes::ServiceState::Down);
    // Accepted and no answer in time: unresponsive, with the time waited.
    for (const auto mode : {BadHttpServer::Mode::SlowHeaders, BadHttpServer::Mode::Silent}) {
        EXPECT_EQ(statusOf(mode).state, probes::ServiceState::Unresponsive);
        EXPECT_TRUE(statusOf(mode).detail.startsWith(
            QStringLiteral("accepted the connection, no answer within 2000 ms")))
            << statusOf(mode).detail.toStdString();
    }
    // Its /health answers a well-formed 200.
    EXPECT_EQ(statusOf(BadHttpServer::Mode::NonUtf8Metrics).state, probes::ServiceState::Healthy);

    // One bad line never loses the page: the running gauge of the non-UTF-8
    // page (7) is read; the lines with bad bytes around it do not hide it.
    const auto &samples = window->session()->loadHistory()->samples();
    ASSERT_FALSE(samples.empty()) << "no load read from the non-UTF-8 page";
    EXPECT_DOUBLE_EQ(samples.back().running, 7);
    EXPECT_EQ(samples.back().source, QStringLiteral("/metrics"));
}

// A status line followed by a cut body (Content-Length not reached, or the
// size limit hit) is not a healthy answer, and a 100 MB body costs at most
// the size limit in memory.
TEST_F(BadInput, CutAnswersAreNotHealthyAndMemoryStaysBounded)
{
    ASSERT_NO_FATAL_FAILURE(watchFor(10000));
    for (const auto mode : {BadHttpServer::Mode::Truncated, BadHttpServer::Mode::HugeBody}) {
        const probes::ServiceStatus &status = statusOf(mode);
        EXPECT_NE(status.state, probes::ServiceState::Healthy)
            << serviceName(mode).toStdString() << ": " << status.detail.toStdString();
    }
    EXPECT_LT(rssPeak - rssBefore, 64LL * 1024 * 1024)
        << "the 100 MB body was not cut at the size limit";
    EXPECT_LT(watchdog->worstStallMs(), 1000) << "the GUI thread stalled";
}
