// HistoryWriter: one writer per database, open blocks rewritten in place
// until full, the periodic flush, and appends from other threads.
#include "historystore.h"
#include "historywriter.h"
#include "testsupport.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <cstdio>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <thread>

using namespace opsdeck::history;
using opsdeck::test::waitUntil;

namespace {

constexpr qint64 t0 = 1'700'000'040'000;

HistoryWriter::Settings settings(int blockSamples = 600, int flushMs = 60000)
{
    HistoryWriter::Settings s;
    s.blockSamples = blockSamples;
    s.flushIntervalMs = flushMs;
    s.retention.rawMs = s.retention.rollupMs = std::numeric_limits<qint64>::max() / 4;
    return s;
}

// (id, count) of every block row, by id: what the writer did to the table.
QVector<QPair<qint64, qint64>> blockRows(const QString &path)
{
    QVector<QPair<qint64, qint64>> rows;
    {
        QSqlDatabase db =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("blockRows"));
        db.setDatabaseName(path);
        EXPECT_TRUE(db.open());
        QSqlQuery query(db);
        EXPECT_TRUE(query.exec(QStringLiteral("SELECT id, count FROM blocks ORDER BY id")));
        while (query.next())
            rows.append({query.value(0).toLongLong(), query.value(1).toLongLong()});
    }
    QSqlDatabase::removeDatabase(QStringLiteral("blockRows"));
    return rows;
}

} // namespace

TEST(HistoryWriter, ASecondWriterIsRefusedAndNamesTheFirst)
{
    QTemporaryDir dir;
    const QString path = HistoryStore::pathIn(dir.path());
    HistoryWriter first(path, settings());
    QString error;
    ASSERT_TRUE(first.start(&error)) << error.toStdString();
    HistoryWriter second(path, settings());
    EXPECT_FALSE(second.start(&error));
    EXPECT_TRUE(error.contains(QStringLiteral("history is being recorded by pid %1")
                                   .arg(QCoreApplication::applicationPid())))
        << error.toStdString();
    EXPECT_FALSE(second.isRecording());
    second.append(QStringLiteral("decode"), QStringLiteral("running"), QString(), t0, 1);
    first.append(QStringLiteral("decode"), QStringLiteral("running"), QString(), t0 + 1000, 2);
    first.stop();

    HistoryStore store(path);
    ASSERT_TRUE(store.open());
    const auto samples =
        store.rawSamples(QStringLiteral("decode"), QStringLiteral("running"), 0, t0 + 5000);
    ASSERT_EQ(samples.size(), 1) << "the refused writer wrote nothing";
    EXPECT_EQ(samples[0].value, 2);

    // Once the first has stopped, the lock is free again.
    EXPECT_TRUE(second.start(&error)) << error.toStdString();
}

// Two names for one data dir (a link to the folder): the second writer meets
// the first's lock beside the real file.
TEST(HistoryWriter, AWriterThroughALinkedFolderMeetsTheLockOfTheFileItNames)
{
    QTemporaryDir dir;
    ASSERT_TRUE(QDir(dir.path()).mkpath(QStringLiteral("a")));
    const QString real = HistoryStore::pathIn(dir.filePath(QStringLiteral("a")));
    ASSERT_TRUE(QFile::link(dir.filePath(QStringLiteral("a")), dir.filePath(QStringLiteral("b"))));
    const QString linked = HistoryStore::pathIn(dir.filePath(QStringLiteral("b")));
    HistoryWriter first(real, settings());
    QString error;
    ASSERT_TRUE(first.start(&error)) << error.toStdString();
    EXPECT_EQ(HistoryWriter::lockPath(linked), HistoryWriter::lockPath(real));
    HistoryWriter second(linked, settings());
    EXPECT_FALSE(second.start(&error));
    EXPECT_EQ(second.startFailure(), HistoryWriter::StartFailure::Locked);
    EXPECT_TRUE(error.contains(QStringLiteral("history is being recorded by pid %1")
                                   .arg(QCoreApplication::applicationPid())))
        << error.toStdString();
}

// A history.sqlite planted as a link is refused and its target untouched;
// the database is the user's alone whatever the umask.
TEST(HistoryWriter, ADatabaseThatIsALinkIsRefusedAndANewOneIs0600)
{
    QTemporaryDir dir;
    const QString victim = dir.filePath(QStringLiteral("victim"));
    ASSERT_TRUE(opsdeck::test::writeFile(victim, "precious\n"));
    ASSERT_TRUE(QDir(dir.path()).mkpath(QStringLiteral("data")));
    const QString path = HistoryStore::pathIn(dir.filePath(QStringLiteral("data")));
    ASSERT_TRUE(QFile::link(victim, path));
    HistoryWriter planted(path, settings());
    QString error;
    EXPECT_FALSE(planted.start(&error));
    EXPECT_TRUE(error.contains(QStringLiteral("symbolic link"))) << error.toStdString();
    EXPECT_EQ(opsdeck::test::readFile(victim), QByteArray("precious\n"));

    const QString fresh = HistoryStore::pathIn(dir.filePath(QStringLiteral("new/data")));
    const mode_t old = ::umask(0);
    HistoryWriter writer(fresh, settings());
    const bool started = writer.start(&error);
    ::umask(old);
    ASSERT_TRUE(started) << error.toStdString();
    writer.append(QStringLiteral("decode"), QStringLiteral("running"), QString(), t0, 1);
    writer.stop();
    EXPECT_EQ(QFile::permissions(fresh) &
                  (QFile::ReadOther | QFile::ReadGroup | QFile::WriteOther | QFile::WriteGroup),
              0);
    EXPECT_EQ(QFile::permissions(dir.filePath(QStringLiteral("new"))) &
                  (QFile::ReadOther | QFile::ExeOther | QFile::ReadGroup | QFile::ExeGroup),
              0);
}

// Another connection holds the write lock past the 5 s busy timeout: the
// flush fails, its samples stay queued and the next flush writes them once;
// past the queue's bound the oldest are dropped and counted exactly.
TEST(HistoryWriter, AFailedFlushKeepsItsSamplesAndOnlyTheBoundDropsAnyCountedExactly)
{
    QTemporaryDir dir;
    const QString path = HistoryStore::pathIn(dir.path());
    HistoryWriter writer(path, settings());
    QString error;
    ASSERT_TRUE(writer.start(&error)) << error.toStdString();
    QSignalSpy failed(&writer, &HistoryWriter::writeFailed);
    int next = 0;
    const auto append = [&](int n) {
        for (int i = 0; i < n; ++i, ++next)
            writer.append(QStringLiteral("decode"), QStringLiteral("running"), QString(),
                          t0 + next * 10LL, next);
    };
    append(100);
    {
        QSqlDatabase blocker =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("blocker"));
        blocker.setDatabaseName(path);
        ASSERT_TRUE(blocker.open());
        QSqlQuery lock(blocker);
        ASSERT_TRUE(lock.exec(QStringLiteral("BEGIN EXCLUSIVE")))
            << lock.lastError().text().toStdString();
        EXPECT_FALSE(writer.flush());
        EXPECT_EQ(writer.samplesQueued(), 100);
        EXPECT_EQ(writer.samplesNotWritten(), 0);
        append(int(PendingQueue::kMaxSamples));
        EXPECT_FALSE(writer.flush());
        // 100 + the bound waited: the 100 oldest went, and only they.
        EXPECT_EQ(writer.samplesQueued(), PendingQueue::kMaxSamples);
        EXPECT_EQ(writer.samplesNotWritten(), 100);
        ASSERT_TRUE(lock.exec(QStringLiteral("COMMIT")));
        lock.finish();
        blocker.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("blocker"));
    EXPECT_TRUE(waitUntil([&] { return failed.size() == 2; }, std::chrono::seconds(5)));
    EXPECT_TRUE(writer.flush());
    EXPECT_EQ(writer.samplesQueued(), 0);
    writer.stop();
    EXPECT_EQ(writer.samplesNotWritten(), 100);
    HistoryStore store(path);
    ASSERT_TRUE(store.open());
    const auto samples = store.rawSamples(QStringLiteral("decode"), QStringLiteral("running"), 0,
                                          std::numeric_limits<qint64>::max());
    ASSERT_EQ(samples.size(), PendingQueue::kMaxSamples);
    EXPECT_EQ(samples.first().value, 100.0) << "written once each, the oldest 100 dropped";
    EXPECT_EQ(samples.last().value, double(next - 1));
}

TEST(HistoryWriter, RewritesTheOpenBlockInPlaceUntilItIsFull)
{
    QTemporaryDir dir;
    const QString path = HistoryStore::pathIn(dir.path());
    HistoryWriter writer(path, settings(10));
    QString error;
    ASSERT_TRUE(writer.start(&error)) << error.toStdString();
    int next = 0;
    auto append = [&](int n) {
        for (int i = 0; i < n; ++i, ++next)
            writer.append(QStringLiteral("decode"), QStringLiteral("running"), QString(),
                          t0 + next * 1000LL, next);
    };
    append(5);
    ASSERT_TRUE(writer.flush());
    const auto once = blockRows(path);
    ASSERT_EQ(once.size(), 1);
    EXPECT_EQ(once[0].second, 5);
    append(3);
    ASSERT_TRUE(writer.flush());
    const auto twice = blockRows(path);
    ASSERT_EQ(twice.size(), 1) << "the open block is rewritten, not a new row per flush";
    EXPECT_EQ(twice[0].first, once[0].first);
    EXPECT_EQ(twice[0].second, 8);
    append(7);
    writer.stop();
    const auto rows = blockRows(path);
    ASSERT_EQ(rows.size(), 2);
    EXPECT_EQ(rows[0].second, 10);
    EXPECT_EQ(rows[1].second, 5);
    HistoryStore store(path);
    ASSERT_TRUE(store.open());
    const auto samples =
        store.rawSamples(QStringLiteral("decode"), QStringLiteral("running"), 0, t0 + 100'000);
    ASSERT_EQ(samples.size(), 15);
    for (int i = 0; i < 15; ++i)
        EXPECT_EQ(samples[i].value, i);
}

TEST(HistoryWriter, FlushesOnItsIntervalAndTakesAppendsFromAnyThread)
{
    QTemporaryDir dir;
    const QString path = HistoryStore::pathIn(dir.path());
    HistoryWriter writer(path, settings(600, 200));
    QString error;
    ASSERT_TRUE(writer.start(&error)) << error.toStdString();
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&writer, t] {
            for (int i = 0; i < 500; ++i)
                writer.append(QStringLiteral("svc%1").arg(t), QStringLiteral("running"),
                              QStringLiteral("requests"), t0 + i * 1000LL, i);
        });
    }
    for (auto &thread : threads)
        thread.join();
    HistoryStore store(path);
    ASSERT_TRUE(store.open());
    // No flush() and no stop(): only the writer's own timer can make these visible.
    EXPECT_TRUE(waitUntil(
        [&] {
            for (int t = 0; t < 4; ++t)
                if (store
                        .rawSamples(QStringLiteral("svc%1").arg(t), QStringLiteral("running"), 0,
                                    t0 + 600'000)
                        .size() != 500)
                    return false;
            return true;
        },
        std::chrono::seconds(10)));
}

TEST(HistoryWriter, AnOldEmptyLockLeftByAKilledWriterIsTakenOver)
{
    QTemporaryDir dir;
    const QString path = HistoryStore::pathIn(dir.path());
    // What a writer killed between creating the lock and writing its pid leaves.
    QFile lock(HistoryWriter::lockPath(path));
    ASSERT_TRUE(lock.open(QIODevice::WriteOnly));
    lock.close();

    // Young, it may be a writer mid-creation: refused, without a bare error number.
    HistoryWriter early(path, settings());
    QString error;
    EXPECT_FALSE(early.start(&error));
    EXPECT_EQ(early.startFailure(), HistoryWriter::StartFailure::Locked);
    EXPECT_TRUE(error.contains(QStringLiteral("has not written its pid yet")))
        << error.toStdString();

    // An hour old: stale, removed and taken.
    ASSERT_TRUE(lock.open(QIODevice::ReadWrite));
    ASSERT_TRUE(lock.setFileTime(QDateTime::currentDateTime().addSecs(-3600),
                                 QFileDevice::FileModificationTime));
    lock.close();
    HistoryWriter writer(path, settings());
    ASSERT_TRUE(writer.start(&error)) << error.toStdString();
    writer.append(QStringLiteral("decode"), QStringLiteral("running"), QString(), t0, 3);
    ASSERT_TRUE(writer.flush());
    EXPECT_GT(QFileInfo(HistoryWriter::lockPath(path)).size(), 0) << "now holds our pid";

    // A live writer's lock is refused however old it is.
    ASSERT_TRUE(lock.open(QIODevice::ReadWrite));
    ASSERT_TRUE(lock.setFileTime(QDateTime::currentDateTime().addSecs(-3600),
                                 QFileDevice::FileModificationTime));
    lock.close();
    HistoryWriter second(path, settings());
    EXPECT_FALSE(second.start(&error));
    EXPECT_TRUE(error.contains(QStringLiteral("history is being recorded by pid")))
        << error.toStdString();
}

// The last flush (stop(), no event loop after it: `record` on SIGTERM) finds
// the file replaced: said by stop() itself, not by a signal nobody receives,
// and its samples counted as not written.
TEST(HistoryWriter, WhatTheLastFlushFindsIsSaidByStopItself)
{
    QTemporaryDir dir;
    const QString path = HistoryStore::pathIn(dir.path());
    HistoryWriter writer(path, settings());
    QString error;
    ASSERT_TRUE(writer.start(&error)) << error.toStdString();
    QSignalSpy corrupted(&writer, &HistoryWriter::corrupted);
    writer.append(QStringLiteral("decode"), QStringLiteral("running"), QString(), t0, 1);
    ASSERT_TRUE(writer.flush());
    const QString other = dir.filePath(QStringLiteral("other.sqlite"));
    {
        HistoryStore store(other);
        ASSERT_TRUE(store.open());
    }
    ASSERT_EQ(::rename(QFile::encodeName(other).constData(), QFile::encodeName(path).constData()),
              0);
    for (int i = 1; i <= 5; ++i)
        writer.append(QStringLiteral("decode"), QStringLiteral("running"), QString(), t0 + i, i);
    writer.stop();
    EXPECT_TRUE(writer.isCorrupt());
    ASSERT_EQ(corrupted.size(), 1);
    EXPECT_TRUE(corrupted.first().at(0).toString().contains(u"removed or replaced"));
    EXPECT_EQ(writer.samplesNotWritten(), 5);
    QCoreApplication::processEvents(); // the worker's own signal, queued, is not said twice
    EXPECT_EQ(corrupted.size(), 1);
}

// Two corrupt files moved aside within one second (a recover, then another
// after a second bad file) must both stay: the second never replaces the first.
TEST(HistoryWriter, TwoFilesMovedAsideInOneSecondAreBothKept)
{
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("history.sqlite"));
    const auto write = [](const QString &path, const QByteArray &bytes) {
        QFile file(path);
        return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
    };
    QStringList moved;
    for (const QByteArray &bytes : {QByteArray(4096, 'A'), QByteArray(4096, 'B')}) {
        ASSERT_TRUE(write(db, bytes));
        ASSERT_TRUE(write(db + QStringLiteral("-wal"), bytes.left(100)));
        QString to;
        QString error;
        ASSERT_TRUE(HistoryWriter::moveAside(db, &to, &error)) << error.toStdString();
        moved << to;
    }
    ASSERT_EQ(moved.size(), 2);
    EXPECT_NE(moved[0], moved[1]);
    QFile first(moved[0]);
    ASSERT_TRUE(first.open(QIODevice::ReadOnly));
    EXPECT_EQ(first.readAll(), QByteArray(4096, 'A'));
    QFile firstWal(moved[0] + QStringLiteral("-wal"));
    ASSERT_TRUE(firstWal.open(QIODevice::ReadOnly));
    EXPECT_EQ(firstWal.readAll(), QByteArray(100, 'A'));
    QFile second(moved[1]);
    ASSERT_TRUE(second.open(QIODevice::ReadOnly));
    EXPECT_EQ(second.readAll(), QByteArray(4096, 'B'));
    EXPECT_FALSE(QFileInfo::exists(db));
}
