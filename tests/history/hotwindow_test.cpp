// HotWindow: rings bounded per series and in series count; preload puts the
// recorded points of the last hours back after a restart.
#include "historystore.h"
#include "historywriter.h"
#include "hotwindow.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace opsdeck::history;

TEST(HotWindow, KeepsTheNewestSamplesWithinItsBound)
{
    HotWindow::Settings settings;
    settings.windowMs = 10'000;
    settings.periodMs = 1000;
    settings.maxSeries = 2;
    HotWindow window(settings);
    ASSERT_EQ(window.capacity(), 10);
    QSignalSpy appended(&window, &HotWindow::appended);
    for (int i = 0; i < 25; ++i)
        window.append(QStringLiteral("decode"), QStringLiteral("running"), i * 1000LL, i);
    EXPECT_EQ(appended.size(), 25);
    const auto points = window.points(QStringLiteral("decode"), QStringLiteral("running"));
    ASSERT_EQ(points.size(), 10);
    for (int i = 0; i < 10; ++i) {
        EXPECT_EQ(points[i].timeMs, (15 + i) * 1000LL);
        EXPECT_EQ(points[i].value, 15 + i);
    }
    // latest() is the last sample to arrive, after the ring wrapped twice.
    const auto newest = window.latest(QStringLiteral("decode"), QStringLiteral("running"));
    ASSERT_TRUE(newest.has_value());
    EXPECT_EQ(newest->timeMs, 24'000);
    EXPECT_EQ(newest->value, 24);
    EXPECT_FALSE(window.latest(QStringLiteral("decode"), QStringLiteral("absent")).has_value());
    window.append(QStringLiteral("decode"), QStringLiteral("waiting"), 0, 1);
    window.append(QStringLiteral("prefill"), QStringLiteral("up"), 0, 1);
    EXPECT_EQ(window.seriesKeys().size(), 2) << "a third series is past maxSeries";
    EXPECT_TRUE(window.points(QStringLiteral("prefill"), QStringLiteral("up")).isEmpty());
    EXPECT_EQ(window.bytesUsed(), 2 * 10 * static_cast<qint64>(sizeof(Sample)));
    // The default: 1 h at 1 s.
    EXPECT_EQ(HotWindow().capacity(), 3600);
}

TEST(HotWindow, PreloadReturnsTheRecordedPoints)
{
    QTemporaryDir dir;
    const QString path = HistoryStore::pathIn(dir.path());
    const qint64 now = 1'700'000'040'000;
    {
        HistoryWriter::Settings settings;
        settings.retention.rawMs = settings.retention.rollupMs =
            std::numeric_limits<qint64>::max() / 4;
        HistoryWriter writer(path, settings);
        QString error;
        ASSERT_TRUE(writer.start(&error)) << error.toStdString();
        for (int i = 0; i < 120; ++i) {
            writer.append(QStringLiteral("decode"), QStringLiteral("live_running"),
                          QStringLiteral("requests"), now - (119 - i) * 1000LL, i % 20);
            writer.append(QStringLiteral("proxy"), QStringLiteral("up"), QStringLiteral("boolean"),
                          now - (119 - i) * 1000LL, 1);
        }
        // Two hours ago: outside a 1 h preload.
        writer.append(QStringLiteral("decode"), QStringLiteral("live_running"),
                      QStringLiteral("requests"), now - 7'200'000, 99);
        writer.stop();
    }
    HistoryStore store(path);
    ASSERT_TRUE(store.open());
    HotWindow window;
    EXPECT_EQ(window.preload(store, 1.0, now), 240);
    const auto running = window.points(QStringLiteral("decode"), QStringLiteral("live_running"));
    ASSERT_EQ(running.size(), 120);
    EXPECT_EQ(running.front().timeMs, now - 119'000);
    EXPECT_EQ(running.back().timeMs, now);
    EXPECT_EQ(running[25].value, 5);
    EXPECT_EQ(window.points(QStringLiteral("proxy"), QStringLiteral("up")).size(), 120);

    // A small window keeps only the newest points of what is preloaded.
    HotWindow::Settings small;
    small.windowMs = 30'000;
    HotWindow narrow(small);
    narrow.preload(store, 1.0, now);
    const auto newest = narrow.points(QStringLiteral("decode"), QStringLiteral("live_running"));
    ASSERT_EQ(newest.size(), 30);
    EXPECT_EQ(newest.front().timeMs, now - 29'000);
}
