// The batch check's pure parts: the verdict at its thresholds, TTFT
// percentiles, the JSON keys the CLI and history share, and the history
// store's `checks` table (new in schema 2, added to version-1 files on open).
#include "batchverdict.h"
#include "checkjson.h"
#include "historystore.h"

#include <QJsonArray>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace opsdeck;
using probes::BatchVerdict;
using probes::batchVerdict;

TEST(BatchVerdict, AllRunningAtOnceAndFasterThanOneAfterAnotherIsBatched)
{
    // The run people see: 64 of 64 at once, 4.19 s against a 1.33 s single,
    // about 20x faster than one after another. Wall > 2 x single must not matter.
    EXPECT_EQ(batchVerdict(64, 64, 4.19, 1.33), BatchVerdict::Batched);
    EXPECT_NEAR(probes::batchSpeedUp(64, 4.19, 1.33), 20.3, 0.05);
    // n 16, single 1 s: BATCHED needs peak >= 12 and a speed-up >= 2 (wall <= 8 s).
    EXPECT_EQ(batchVerdict(16, 12, 8.0, 1.0), BatchVerdict::Batched);
    EXPECT_EQ(batchVerdict(16, 16, 0.5, 1.0), BatchVerdict::Batched);
    EXPECT_EQ(batchVerdict(16, 11.99, 2.0, 1.0), BatchVerdict::Partial) << "peak just below 0.75 N";
    EXPECT_EQ(batchVerdict(16, 12, 8.01, 1.0), BatchVerdict::Partial) << "speed-up just below 2";
    // A large batch whose step time grew a lot is still batched.
    EXPECT_EQ(batchVerdict(256, 256, 30.0, 1.33), BatchVerdict::Batched);
}

TEST(BatchVerdict, SerializedWhenRunningStaysAtTwoOrNoFasterThanOneAfterAnother)
{
    EXPECT_EQ(batchVerdict(16, 2, 1.5, 1.0), BatchVerdict::Serialized) << "peak <= 2";
    EXPECT_EQ(batchVerdict(16, 1, 16.0, 1.0), BatchVerdict::Serialized);
    EXPECT_EQ(batchVerdict(16, 2.01, 1.5, 1.0), BatchVerdict::Partial) << "peak just above 2";
    // Speed-up 16 x 1 / 12 = 1.33: no faster than one after another.
    EXPECT_EQ(batchVerdict(16, 10, 12.0, 1.0), BatchVerdict::Serialized);
    EXPECT_EQ(batchVerdict(16, 10, 11.99, 1.0), BatchVerdict::Partial);
}

TEST(BatchVerdict, PartialAdmissionIsPartial)
{
    // --max-running-requests N/4: 16 of 64 at once, four waves.
    EXPECT_EQ(batchVerdict(64, 16, 8.4, 1.33), BatchVerdict::Partial);
}

TEST(BatchVerdict, BatchedIsCheckedFirstWhereTheConditionsOverlap)
{
    // n 2: peak 2 satisfies both "peak >= 1.5" and "peak <= 2"; BATCHED needs 1.5x there.
    EXPECT_EQ(batchVerdict(2, 2, 1.2, 1.0), BatchVerdict::Batched);
    EXPECT_EQ(batchVerdict(2, 2, 2.5, 1.0), BatchVerdict::Serialized);
    EXPECT_EQ(batchVerdict(1, 1, 1.0, 1.0), BatchVerdict::Batched);
    EXPECT_EQ(batchVerdict(1, 0, 1.0, 1.0), BatchVerdict::Serialized);
}

TEST(BatchVerdict, NoVerdictWithoutTimesOrRequests)
{
    EXPECT_EQ(batchVerdict(16, 16, 1.0, 0.0), BatchVerdict::None);
    EXPECT_EQ(batchVerdict(16, 16, 0.0, 1.0), BatchVerdict::None);
    EXPECT_EQ(batchVerdict(0, 0, 1.0, 1.0), BatchVerdict::None);
    EXPECT_EQ(probes::batchVerdictName(BatchVerdict::Batched), QStringLiteral("BATCHED"));
    EXPECT_EQ(probes::batchVerdictName(BatchVerdict::Serialized), QStringLiteral("SERIALIZED"));
    EXPECT_EQ(probes::batchVerdictName(BatchVerdict::Partial), QStringLiteral("PARTIAL"));
}

TEST(BatchVerdict, TheReasonIsASentenceWithTheSpeedUp)
{
    EXPECT_EQ(probes::batchVerdictReason(64, 64, 4.19, 1.33),
              QStringLiteral("peak 64 of 64 running; 64 requests in 4.19 s, 20× faster than one "
                             "after another (single 1.33 s)"));
    EXPECT_EQ(probes::batchVerdictReason(16, 1, 21.6, 1.35),
              QStringLiteral("peak 1 of 16 running; 16 requests in 21.60 s, 1.0× — no faster than "
                             "one after another (single 1.35 s): the decode ran them one or two "
                             "at a time"));
    EXPECT_TRUE(probes::batchVerdictReason(64, 16, 8.4, 1.33)
                    .contains(QStringLiteral("fewer than 48 ran at once")));
    // 1.96x misses the 2x criterion: cut to "1.9×", never rounded up to "2.0×".
    EXPECT_NE(probes::batchVerdict(16, 16, 8.1633, 1.0), probes::BatchVerdict::Batched);
    EXPECT_TRUE(probes::batchVerdictReason(16, 16, 8.1633, 1.0).contains(QStringLiteral(" 1.9× ")))
        << probes::batchVerdictReason(16, 16, 8.1633, 1.0).toStdString();
}

TEST(BatchCheckResult, WithoutAVerdictTheSummarySaysNotMeasuredAndShowsNoZeroTimes)
{
    probes::BatchCheckResult result;
    result.cluster = QStringLiteral("pd");
    result.n = 16;
    result.error = QStringLiteral("the single request failed: Connection refused");
    const QString summary = result.summary();
    EXPECT_EQ(summary, QStringLiteral("batch check pd: not measured: the single request failed: "
                                      "Connection refused"));
    EXPECT_FALSE(summary.contains(QStringLiteral("0.00 s")));
    result.error.clear();
    result.verdict = BatchVerdict::Batched;
    result.peakRunning = 16;
    result.wallS = 2.1;
    result.singleS = 1.35;
    result.failures = 1;
    EXPECT_EQ(result.summary(),
              QStringLiteral("batch check pd: BATCHED, peak 16 of 16 running; 16 requests in 2.10 "
                             "s, 10× faster than one after another (single 1.35 s); 1 of 16 "
                             "requests failed"));
}

TEST(BatchCheckResult, TtftPercentilesAreNearestRankOverRequestsWithATtft)
{
    probes::BatchCheckResult result;
    for (int i = 0; i < 100; ++i)
        result.requests.append({i, 200, double(100 - i), 0, 0, 0, {}}); // 100..1 ms
    result.requests.append({100, 0, -1, 0, 0, 0, QStringLiteral("timed out")});
    EXPECT_EQ(result.ttftPercentileMs(0.5), 50);
    EXPECT_EQ(result.ttftPercentileMs(0.99), 99);
    EXPECT_EQ(result.ttftPercentileMs(1.0), 100);
    EXPECT_EQ(probes::BatchCheckResult{}.ttftPercentileMs(0.5), -1);
}

TEST(CheckJson, BatchCheckKeysAreTheContract)
{
    probes::BatchCheckResult result;
    result.verdict = BatchVerdict::Partial;
    result.n = 4;
    result.peakRunning = 3;
    result.wallS = 2.5;
    result.singleS = 1.25;
    result.requests.append({0, 200, 12.5, 1000, 1000, 40000, {}});
    result.requests.append({1, 0, -1, 0, 3000, 0, QStringLiteral("cancelled")});
    result.failures = 1;
    result.samples = {{0, 0}, {250, 3}};
    const QJsonObject json = probes::batchCheckToJson(result);
    EXPECT_EQ(json.value(QStringLiteral("verdict")).toString(), QStringLiteral("PARTIAL"));
    EXPECT_EQ(json.value(QStringLiteral("n")).toInt(), 4);
    EXPECT_EQ(json.value(QStringLiteral("peak_running")).toDouble(), 3);
    EXPECT_EQ(json.value(QStringLiteral("wall_s")).toDouble(), 2.5);
    EXPECT_EQ(json.value(QStringLiteral("single_s")).toDouble(), 1.25);
    EXPECT_EQ(json.value(QStringLiteral("failures")).toInt(), 1);
    EXPECT_EQ(json.value(QStringLiteral("ttft_p50_ms")).toDouble(), 12.5);
    EXPECT_EQ(json.value(QStringLiteral("samples")).toArray().at(1).toArray(),
              (QJsonArray{250, 3}));
    const QJsonArray requests = json.value(QStringLiteral("requests")).toArray();
    ASSERT_EQ(requests.size(), 2);
    EXPECT_TRUE(requests.at(1).toObject().value(QStringLiteral("ttft_ms")).isNull());
    EXPECT_EQ(requests.at(1).toObject().value(QStringLiteral("error")).toString(),
              QStringLiteral("cancelled"));
    EXPECT_TRUE(probes::batchCheckToJson({}).value(QStringLiteral("verdict")).isNull());
}

TEST(HistoryChecks, ChecksAreStoredWholeAndReadBackByTimeAndKind)
{
    QTemporaryDir dir;
    history::HistoryStore store(history::HistoryStore::pathIn(dir.path()));
    ASSERT_TRUE(store.open()) << store.lastError().toStdString();
    ASSERT_TRUE(store.addCheck({0, 1000, QStringLiteral("batch-check"), QStringLiteral("pd"),
                                QByteArrayLiteral("{\"verdict\":\"BATCHED\"}")}));
    ASSERT_TRUE(store.addCheck({0, 2000, QStringLiteral("verification"), QStringLiteral("pd"),
                                QByteArrayLiteral("{\"passed\":true}")}));
    const auto all = store.checks(0, 5000);
    ASSERT_EQ(all.size(), 2);
    EXPECT_EQ(all[0].kind, QStringLiteral("batch-check"));
    EXPECT_EQ(all[0].json, QByteArrayLiteral("{\"verdict\":\"BATCHED\"}"));
    EXPECT_GT(all[0].id, 0);
    const auto verifications = store.checks(0, 5000, QStringLiteral("verification"));
    ASSERT_EQ(verifications.size(), 1);
    EXPECT_EQ(verifications[0].timeMs, 2000);
    EXPECT_TRUE(store.checks(1500, 1900).isEmpty());
}

TEST(HistoryChecks, AVersionOneDatabaseGainsTheChecksTableAndKeepsItsMarkers)
{
    QTemporaryDir dir;
    const QString path = history::HistoryStore::pathIn(dir.path());
    {
        // The schema-1 tables as issue 3 wrote them, with one marker.
        QSqlDatabase db =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("v1"));
        db.setDatabaseName(path);
        ASSERT_TRUE(db.open());
        QSqlQuery query(db);
        ASSERT_TRUE(query.exec(QStringLiteral(
            "CREATE TABLE markers(id INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL, kind TEXT "
            "NOT NULL, text TEXT NOT NULL DEFAULT '', link TEXT NOT NULL DEFAULT '', service TEXT "
            "NOT NULL DEFAULT '')")));
        ASSERT_TRUE(query.exec(QStringLiteral(
            "INSERT INTO markers(time_ms, kind, text) VALUES(500, 'note', 'before')")));
        ASSERT_TRUE(query.exec(QStringLiteral("PRAGMA user_version = 1")));
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("v1"));
    history::HistoryStore store(path);
    ASSERT_TRUE(store.open()) << store.lastError().toStdString();
    ASSERT_EQ(store.markers(0, 1000).size(), 1);
    EXPECT_EQ(store.markers(0, 1000)[0].text, QStringLiteral("before"));
    EXPECT_TRUE(store.addCheck(
        {0, 600, QStringLiteral("batch-check"), QStringLiteral("pd"), QByteArrayLiteral("{}")}))
        << store.lastError().toStdString();
    EXPECT_EQ(store.checks(0, 1000).size(), 1);
}
