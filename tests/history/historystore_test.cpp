// HistoryStore on real SQLite files in temp dirs: values survive close and
// reopen, rollups from known inputs across minute boundaries, retention,
// markers, and the raw/rollup split of points().
#include "historystore.h"
#include "historywriter.h"

#include <QFile>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <unistd.h>

using namespace opsdeck::history;

namespace {

constexpr qint64 minute0 = 1'700'000'040'000; // a minute boundary (multiple of 60000)
static_assert(minute0 % 60000 == 0);

HistoryWriter::Settings settings()
{
    HistoryWriter::Settings s;
    s.flushIntervalMs = 60000; // flushed by the test, not the timer
    // Everything the tests write is in 2023: keep it, whatever today is.
    s.retention.rawMs = s.retention.rollupMs = std::numeric_limits<qint64>::max() / 4;
    return s;
}

} // namespace

TEST(HistoryStore, ValuesSurviveCloseAndReopen)
{
    QTemporaryDir dir;
    const QString path = HistoryStore::pathIn(dir.path());
    QVector<Sample> written;
    {
        HistoryWriter writer(path, settings());
        QString error;
        ASSERT_TRUE(writer.start(&error)) << error.toStdString();
        for (int i = 0; i < 1500; ++i) {
            const double value = i == 700 ? std::numeric_limits<double>::quiet_NaN() : i * 0.25;
            written.append({minute0 + i * 1000LL + (i % 3), value});
            writer.append(QStringLiteral("decode"), QStringLiteral("live_running"),
                          QStringLiteral("requests"), written.back().timeMs, value);
            writer.append(QStringLiteral("router"), QStringLiteral("health_latency_ms"),
                          QStringLiteral("ms"), written.back().timeMs, 1.5);
        }
        writer.stop();
    }
    HistoryStore store(path);
    ASSERT_TRUE(store.open()) << store.lastError().toStdString();
    const auto samples = store.rawSamples(QStringLiteral("decode"), QStringLiteral("live_running"),
                                          minute0, minute0 + 3'600'000);
    ASSERT_EQ(samples.size(), written.size());
    for (qsizetype i = 0; i < written.size(); ++i) {
        EXPECT_EQ(samples[i].timeMs, written[i].timeMs);
        if (i == 700)
            EXPECT_TRUE(std::isnan(samples[i].value));
        else
            EXPECT_EQ(samples[i].value, written[i].value);
    }
    const auto series = store.seriesList();
    ASSERT_EQ(series.size(), 2);
    EXPECT_EQ(series[0].service, QStringLiteral("decode"));
    EXPECT_EQ(series[0].unit, QStringLiteral("requests"));
    EXPECT_EQ(series[1].key, QStringLiteral("health_latency_ms"));
    EXPECT_EQ(series[1].unit, QStringLiteral("ms"));
    // A sub-range reads only what lies in it.
    EXPECT_EQ(store
                  .rawSamples(QStringLiteral("decode"), QStringLiteral("live_running"),
                              minute0 + 10'000, minute0 + 19'999)
                  .size(),
              10);
    EXPECT_TRUE(store.points(QStringLiteral("nobody"), QStringLiteral("x"), 0, minute0).isEmpty());
}

TEST(HistoryStore, RollupsSummariseEachMinuteAcrossBoundariesAndRestarts)
{
    QTemporaryDir dir;
    const QString path = HistoryStore::pathIn(dir.path());
    const QString svc = QStringLiteral("decode");
    const QString key = QStringLiteral("running");
    {
        HistoryWriter writer(path, settings());
        QString error;
        ASSERT_TRUE(writer.start(&error)) << error.toStdString();
        const QVector<Sample> input{{minute0, 1},
                                    {minute0 + 20'000, 5},
                                    {minute0 + 59'999, 3},
                                    {minute0 + 60'000, 10},
                                    {minute0 + 61'000, std::numeric_limits<double>::quiet_NaN()},
                                    {minute0 + 119'000, 2},
                                    {minute0 + 120'000, 7}};
        for (const Sample &s : input)
            writer.append(svc, key, QStringLiteral("requests"), s.timeMs, s.value);
        ASSERT_TRUE(writer.flush());
        HistoryStore reader(path);
        ASSERT_TRUE(reader.open());
        const auto closed = reader.rollups(svc, key, 0, minute0 + 3'600'000);
        ASSERT_EQ(closed.size(), 2) << "the third minute is still open";
        EXPECT_EQ(closed[0].minuteMs, minute0);
        EXPECT_EQ(closed[0].min, 1);
        EXPECT_EQ(closed[0].max, 5);
        EXPECT_DOUBLE_EQ(closed[0].mean, 3);
        EXPECT_EQ(closed[0].last, 3);
        EXPECT_EQ(closed[0].count, 3);
        EXPECT_EQ(closed[1].minuteMs, minute0 + 60'000);
        EXPECT_EQ(closed[1].min, 2);
        EXPECT_EQ(closed[1].max, 10);
        EXPECT_DOUBLE_EQ(closed[1].mean, 6) << "NaN is not counted";
        EXPECT_EQ(closed[1].last, 2);
        EXPECT_EQ(closed[1].count, 2);
        writer.stop(); // writes the open minute too
    }
    {
        // A restart in the middle of minute 2: its two parts merge into one row.
        HistoryWriter writer(path, settings());
        QString error;
        ASSERT_TRUE(writer.start(&error)) << error.toStdString();
        writer.append(svc, key, QStringLiteral("requests"), minute0 + 150'000, 9);
        writer.stop();
    }
    HistoryStore store(path);
    ASSERT_TRUE(store.open());
    const auto rollups = store.rollups(svc, key, 0, minute0 + 3'600'000);
    ASSERT_EQ(rollups.size(), 3);
    EXPECT_EQ(rollups[2].minuteMs, minute0 + 120'000);
    EXPECT_EQ(rollups[2].min, 7);
    EXPECT_EQ(rollups[2].max, 9);
    EXPECT_DOUBLE_EQ(rollups[2].mean, 8);
    EXPECT_EQ(rollups[2].last, 9);
    EXPECT_EQ(rollups[2].count, 2);
}

TEST(HistoryStore, RetentionPrunesRawBlocksAndKeepsRollups)
{
    QTemporaryDir dir;
    HistoryStore store(HistoryStore::pathIn(dir.path()));
    ASSERT_TRUE(store.open()) << store.lastError().toStdString();
    const qint64 now = minute0 + 40LL * 24 * 3600 * 1000;
    const qint64 day = 24LL * 3600 * 1000;
    const auto id = store.seriesId(QStringLiteral("decode"), QStringLiteral("running"),
                                   QStringLiteral("requests"));
    ASSERT_TRUE(id.has_value());
    const qint64 old = Rollup::minuteOf(now - 2 * day);
    const qint64 ancient = Rollup::minuteOf(now - 31 * day);
    const qint64 recent = Rollup::minuteOf(now - 3600'000);
    ASSERT_TRUE(store.beginBatch());
    ASSERT_TRUE(store.writeBlock(*id, 0, {{old, 4}, {old + 1000, 6}}));
    ASSERT_TRUE(store.writeBlock(*id, 0, {{recent, 1}, {recent + 1000, 3}}));
    for (const qint64 minute : {ancient, old, recent}) {
        Rollup r;
        r.minuteMs = minute;
        r.add(minute == old ? 4 : 1);
        r.add(minute == old ? 6 : 3);
        ASSERT_TRUE(store.mergeRollup(*id, r));
    }
    ASSERT_TRUE(store.commitBatch());

    const auto deleted = store.prune(Retention{}, now);
    ASSERT_TRUE(deleted.has_value()) << store.lastError().toStdString();
    EXPECT_EQ(*deleted, 2) << "the 2-day-old block and the 31-day-old rollup";
    const QString svc = QStringLiteral("decode");
    const QString key = QStringLiteral("running");
    EXPECT_TRUE(store.rawSamples(svc, key, old - 1, old + 60'000).isEmpty());
    EXPECT_EQ(store.rawSamples(svc, key, recent, now).size(), 2);
    const auto rollups = store.rollups(svc, key, 0, now);
    ASSERT_EQ(rollups.size(), 2);
    EXPECT_EQ(rollups[0].minuteMs, old);

    // Where raw samples are gone the rollup answers; where they are kept, raw.
    const auto points = store.points(svc, key, now - 3 * day, now);
    ASSERT_EQ(points.size(), 3);
    EXPECT_TRUE(points[0].rollup);
    EXPECT_EQ(points[0].timeMs, old);
    EXPECT_DOUBLE_EQ(points[0].value, 5);
    EXPECT_EQ(points[0].min, 4);
    EXPECT_EQ(points[0].max, 6);
    EXPECT_FALSE(points[1].rollup);
    EXPECT_EQ(points[1].timeMs, recent);
    EXPECT_EQ(points[2].value, 3);
}

TEST(HistoryStore, MarkersRoundTrip)
{
    QTemporaryDir dir;
    const QString path = HistoryStore::pathIn(dir.path());
    {
        HistoryStore store(path);
        ASSERT_TRUE(store.open());
        const auto first = store.addMarker({0, minute0 + 5000, QStringLiteral("knob"),
                                            QStringLiteral("revert SGLANG_SM120_MMA_TARGET_CTAS"),
                                            QStringLiteral("audit:17"), QStringLiteral("decode")});
        const auto second =
            store.addMarker({0, minute0, QStringLiteral("restart"),
                             QStringLiteral("décode redémarré ✓"), QString(), QString()});
        store.addMarker({0, minute0 + 999'999, QStringLiteral("note"), QStringLiteral("later"),
                         QString(), QString()});
        ASSERT_TRUE(first && second);
        EXPECT_NE(*first, *second);
    }
    HistoryStore store(path);
    ASSERT_TRUE(store.open());
    const auto markers = store.markers(minute0, minute0 + 10'000);
    ASSERT_EQ(markers.size(), 2);
    EXPECT_EQ(markers[0].kind, QStringLiteral("restart"));
    EXPECT_EQ(markers[0].text, QStringLiteral("décode redémarré ✓"));
    EXPECT_TRUE(markers[0].link.isEmpty());
    EXPECT_EQ(markers[1].timeMs, minute0 + 5000);
    EXPECT_EQ(markers[1].kind, QStringLiteral("knob"));
    EXPECT_EQ(markers[1].text, QStringLiteral("revert SGLANG_SM120_MMA_TARGET_CTAS"));
    EXPECT_EQ(markers[1].link, QStringLiteral("audit:17"));
    EXPECT_EQ(markers[1].service, QStringLiteral("decode"));
    EXPECT_GT(markers[1].id, 0);
}

// The database, its WAL, its shared memory and the WAL's record are never
// written through a second name (a hard link planted by someone who can write
// the folder) or a symbolic link: the open is refused before SQLite touches
// any of them, and the other name's bytes stay as they were.
TEST(HistoryStore, ItsFilesAreNeverWrittenThroughAnotherName)
{
    for (const QString &suffix :
         {QString(), QStringLiteral("-wal"), QStringLiteral("-shm"), QStringLiteral("-walbase")}) {
        for (const bool hard : {true, false}) {
            SCOPED_TRACE(
                QString(suffix + (hard ? u" hard link" : u" symbolic link")).toStdString());
            QTemporaryDir dir;
            const QString path = HistoryStore::pathIn(dir.path());
            const QString victim = dir.filePath(QStringLiteral("victim"));
            const QByteArray bytes(4096, 'v');
            {
                QFile file(victim);
                ASSERT_TRUE(file.open(QIODevice::WriteOnly));
                ASSERT_EQ(file.write(bytes), bytes.size());
            }
            const QByteArray name = QFile::encodeName(path + suffix);
            ASSERT_EQ(hard ? ::link(QFile::encodeName(victim).constData(), name.constData())
                           : ::symlink(QFile::encodeName(victim).constData(), name.constData()),
                      0);
            HistoryStore store(path);
            EXPECT_FALSE(store.open());
            EXPECT_TRUE(store.lastError().contains(hard ? QStringLiteral("2 hard links")
                                                        : QStringLiteral("a symbolic link")))
                << store.lastError().toStdString();
            QFile file(victim);
            ASSERT_TRUE(file.open(QIODevice::ReadOnly));
            EXPECT_EQ(file.readAll(), bytes);
        }
    }
}

// A newer OpsDeck's history (a higher user_version) and another program's
// SQLite database are left byte for byte: once, the first was pruned by this
// build's rules and set back to its version, the second gained our tables.
TEST(HistoryStore, ANewerSchemaOrAnotherProgramsDatabaseIsNeverWritten)
{
    const QStringList setups[] = {
        {QStringLiteral("CREATE TABLE blocks(id INTEGER PRIMARY KEY, series_id INTEGER, start_ms "
                        "INTEGER, end_ms INTEGER, count INTEGER, data BLOB)"),
         QStringLiteral("INSERT INTO blocks VALUES(1, 1, 0, 0, 1, x'00')"),
         QStringLiteral("PRAGMA user_version = 3")},
        {QStringLiteral("CREATE TABLE invoices(id INTEGER PRIMARY KEY, total REAL)"),
         QStringLiteral("INSERT INTO invoices VALUES(1, 9.5)")}};
    const QString says[] = {QStringLiteral("written by a newer OpsDeck (schema 3"),
                            QStringLiteral("holds tables OpsDeck does not keep (invoices)")};
    for (int i = 0; i < 2; ++i) {
        QTemporaryDir dir;
        const QString path = HistoryStore::pathIn(dir.path());
        {
            QSqlDatabase db =
                QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("setup"));
            db.setDatabaseName(path);
            ASSERT_TRUE(db.open());
            for (const QString &statement : setups[i]) {
                QSqlQuery query(db);
                ASSERT_TRUE(query.exec(statement)) << statement.toStdString();
            }
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("setup"));
        QFile before(path);
        ASSERT_TRUE(before.open(QIODevice::ReadOnly));
        const QByteArray bytes = before.readAll();
        {
            HistoryStore store(path);
            EXPECT_FALSE(store.open(true));
            EXPECT_TRUE(store.lastError().contains(says[i])) << store.lastError().toStdString();
        }
        QFile after(path);
        ASSERT_TRUE(after.open(QIODevice::ReadOnly));
        EXPECT_EQ(after.readAll(), bytes);
        EXPECT_FALSE(QFile::exists(path + QStringLiteral("-wal")));
    }
}
