// ConsoleSession on real opsdeck-sim processes, with no window: the models
// fill, history is recorded under the writer lock, a second session on the
// same data dir follows the first, and a bad inventory keeps what was watched.
#include "consolesession.h"
#include "historystore.h"
#include "hotwindow.h"
#include "servicestatusmodel.h"
#include "simprocess.h"
#include "testsupport.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace opsdeck;
using namespace std::chrono_literals;
using test::engineInventory;
using test::simArgs;
using test::SimProcess;
using test::waitUntil;
using test::writeInventory;

namespace {

session::ConsoleSession::Options optionsIn(const QString &dataDir)
{
    session::ConsoleSession::Options options;
    options.dataDir = dataDir;
    options.notifications = false; // no desktop bus in tests
    return options;
}

} // namespace

TEST(ConsoleSession, WithoutAWindowItPollsRecordsAndStopsCleanly)
{
    SimProcess engine;
    ASSERT_TRUE(engine.start(simArgs(QStringLiteral("engine"))))
        << engine.errorText().toStdString();
    QTemporaryDir dir;
    const QString dataDir = dir.filePath(QStringLiteral("data"));
    qint64 recorded = 0;
    {
        session::ConsoleSession session(optionsIn(dataDir));
        const auto loaded = session.openInventory(writeInventory(dir, engineInventory(engine)));
        ASSERT_TRUE(loaded.inventory.has_value());
        EXPECT_TRUE(session.isRecordingHistory()) << session.historyDetail().toStdString();
        EXPECT_EQ(session.historyStatus(), QStringLiteral("Recording history"));
        EXPECT_EQ(session.databasePath(), history::HistoryStore::pathIn(dataDir));
        ASSERT_TRUE(waitUntil(
            [&] {
                return session.statusModel()->rowCount() == 1 &&
                       session.statusModel()->status(0).state == probes::ServiceState::Healthy;
            },
            15s));
        ASSERT_TRUE(waitUntil(
            [&] { return session.hotWindow()->points(u"engine"_qs, u"up"_qs).size() >= 2; }, 15s));
        // Nothing of a demo runs: the session may go at once.
        EXPECT_TRUE(session.requestShutdown());
        EXPECT_EQ(session.pollerThread(), nullptr);
        recorded = session.samplesRecorded();
    }
    EXPECT_GT(recorded, 0);
    history::HistoryStore store(history::HistoryStore::pathIn(dataDir));
    ASSERT_TRUE(store.open()) << store.lastError().toStdString();
    EXPECT_FALSE(
        store.rawSamples(u"engine"_qs, u"up"_qs, 0, QDateTime::currentMSecsSinceEpoch() + 1)
            .isEmpty());
}

TEST(ConsoleSession, ASecondSessionOnTheSameDataDirFollowsTheFirstAndTakesOver)
{
    SimProcess engine;
    ASSERT_TRUE(engine.start(simArgs(QStringLiteral("engine"))))
        << engine.errorText().toStdString();
    QTemporaryDir dir;
    const QString dataDir = dir.filePath(QStringLiteral("data"));
    const QString inventory = writeInventory(dir, engineInventory(engine));
    auto first = std::make_unique<session::ConsoleSession>(optionsIn(dataDir));
    ASSERT_TRUE(first->openInventory(inventory).inventory.has_value());
    ASSERT_TRUE(first->isRecordingHistory());

    session::ConsoleSession second(optionsIn(dataDir));
    QSignalSpy status(&second, &session::ConsoleSession::historyStatusChanged);
    ASSERT_TRUE(second.openInventory(inventory).inventory.has_value());
    EXPECT_FALSE(second.isRecordingHistory());
    EXPECT_EQ(second.historyStatus(),
              QStringLiteral("history recorded by pid %1").arg(QCoreApplication::applicationPid()));

    first.reset(); // releases the lock; the second takes it on its next 5 s tick
    ASSERT_TRUE(waitUntil([&] { return second.isRecordingHistory(); }, 12s));
    EXPECT_EQ(second.historyStatus(), QStringLiteral("Recording history"));
    ASSERT_FALSE(status.isEmpty());
    EXPECT_EQ(status.constLast().at(0).toString(), QStringLiteral("Recording history"));
}

TEST(ConsoleSession, ABadInventoryNamesItsLineAndKeepsWhatWasWatched)
{
    SimProcess engine;
    ASSERT_TRUE(engine.start(simArgs(QStringLiteral("engine"))))
        << engine.errorText().toStdString();
    QTemporaryDir dir;
    session::ConsoleSession session(optionsIn(dir.filePath(QStringLiteral("data"))));
    const QString good = writeInventory(dir, engineInventory(engine));
    ASSERT_TRUE(session.openInventory(good).inventory.has_value());

    const QString bad = dir.filePath(QStringLiteral("bad.yaml"));
    QFile file(bad);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write("services:\n  - name: x\n    url: [not, a, url]\n");
    file.close();
    const auto loaded = session.openInventory(bad);
    ASSERT_FALSE(loaded.inventory.has_value());
    ASSERT_FALSE(loaded.errors.isEmpty());
    EXPECT_EQ(loaded.errors.first().file, bad);
    EXPECT_GT(loaded.errors.first().line, 0);
    EXPECT_EQ(session.inventoryPath(), QFileInfo(good).absoluteFilePath());
    EXPECT_EQ(session.statusModel()->rowCount(), 1);
}
