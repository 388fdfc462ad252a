// AlertEvaluator on synthetic samples with chosen times: the three rules,
// raised once, cleared once, no flapping on a lost sample.
#include "alertevaluator.h"
#include "alertstest.h"

#include <gtest/gtest.h>

using namespace opsdeck;
using namespace opsdeck::alerts;
using namespace opsdeck::alerts::test;
using inventory::AlertKind;

namespace {

const QString decode = QStringLiteral("decode");
const QString prefill = QStringLiteral("prefill");
const QString router = QStringLiteral("router");
const QString cluster = QStringLiteral("main");

AlertWatch stuckWatch(const QString &service, int forS = 60)
{
    AlertWatch w;
    w.kind = AlertKind::SchedulerStuck;
    w.target = service;
    w.services = {service};
    w.forS = forS;
    return w;
}

AlertWatch failuresWatch(int forS = 30)
{
    AlertWatch w;
    w.kind = AlertKind::FailuresRising;
    w.target = cluster;
    w.services = {prefill, decode};
    w.forS = forS;
    return w;
}

AlertWatch e2eWatch()
{
    AlertWatch w;
    w.kind = AlertKind::E2eFailing;
    w.target = cluster;
    w.entry.name = router;
    w.entry.role = inventory::Role::Router;
    w.services = {router};
    return w;
}

struct Recorder
{
    explicit Recorder(AlertEvaluator &evaluator)
    {
        QObject::connect(&evaluator, &AlertEvaluator::alertRaised, &evaluator,
                         [this](const Alert &a) { raised.append(a); });
        QObject::connect(&evaluator, &AlertEvaluator::alertCleared, &evaluator,
                         [this](const Alert &a) { cleared.append(a); });
    }
    QVector<Alert> raised;
    QVector<Alert> cleared;
};

probes::MetricsSnapshot batch(qint64 timeMs, double running, double waiting)
{
    return snapshot(decode, timeMs, {{"running", running}, {"waiting", waiting}});
}

} // namespace

TEST(AlertEvaluator, SchedulerStuckFor59sIsNothing60sRaisesOnceRunningAgainClears)
{
    AlertEvaluator evaluator;
    Recorder recorder(evaluator);
    evaluator.setWatches({stuckWatch(decode)});
    for (int s = 0; s <= 59; ++s)
        evaluator.addMetrics(batch(at(s), 0, 3));
    EXPECT_TRUE(recorder.raised.isEmpty()) << "59 s of a stuck scheduler is not yet an alert";

    evaluator.addMetrics(batch(at(60), 0, 3));
    ASSERT_EQ(recorder.raised.size(), 1);
    const Alert &alert = recorder.raised.first();
    EXPECT_EQ(alert.kind, AlertKind::SchedulerStuck);
    EXPECT_EQ(alert.target, decode);
    EXPECT_EQ(alert.sinceMs, at(0));
    EXPECT_EQ(alert.atMs, at(60));
    EXPECT_EQ(alert.text, QStringLiteral("decode: 3 requests waiting and none running for 60 s; "
                                         "the scheduler admits nothing"));
    EXPECT_EQ(evaluator.active().size(), 1);

    for (int s = 61; s <= 90; ++s)
        evaluator.addMetrics(batch(at(s), 0, 4));
    EXPECT_EQ(recorder.raised.size(), 1) << "raised once, not once per sample";
    EXPECT_TRUE(recorder.cleared.isEmpty());

    evaluator.addMetrics(batch(at(91), 2, 2));
    ASSERT_EQ(recorder.cleared.size(), 1);
    EXPECT_EQ(recorder.cleared.first().key(), alert.key());
    EXPECT_EQ(recorder.cleared.first().atMs, at(91));
    EXPECT_TRUE(recorder.cleared.first().text.contains(QStringLiteral("2 running")));
    EXPECT_TRUE(evaluator.active().isEmpty());
    evaluator.addMetrics(batch(at(92), 2, 0));
    EXPECT_EQ(recorder.cleared.size(), 1) << "cleared once";
}

TEST(AlertEvaluator, ALostScrapeNeitherClearsNorRestartsSchedulerStuck)
{
    AlertEvaluator evaluator;
    Recorder recorder(evaluator);
    evaluator.setWatches({stuckWatch(decode, 10)});
    for (int s = 0; s <= 4; ++s)
        evaluator.addMetrics(batch(at(s), 0, 1));
    probes::MetricsSnapshot failed = snapshot(decode, at(5), {});
    failed.error = QStringLiteral("no answer within 2000 ms");
    evaluator.addMetrics(failed);
    evaluator.addMetrics(snapshot(decode, at(6), {{"kv_usage", 0.1}})); // gauges absent
    for (int s = 7; s <= 10; ++s)
        evaluator.addMetrics(batch(at(s), 0, 1));
    ASSERT_EQ(recorder.raised.size(), 1) << "the streak that began at 0 s is 10 s old";
    EXPECT_EQ(recorder.raised.first().sinceMs, at(0));

    failed.timeMs = at(11);
    evaluator.addMetrics(failed);
    EXPECT_TRUE(recorder.cleared.isEmpty()) << "a lost scrape does not clear";
    EXPECT_EQ(evaluator.active().size(), 1);
}

TEST(AlertEvaluator, AnIdleEngineIsNotStuck)
{
    AlertEvaluator evaluator;
    Recorder recorder(evaluator);
    evaluator.setWatches({stuckWatch(decode, 5)});
    for (int s = 0; s <= 30; ++s)
        evaluator.addMetrics(batch(at(s), 0, 0));
    for (int s = 31; s <= 60; ++s)
        evaluator.addMetrics(batch(at(s), 8, 20)); // busy, with a queue
    EXPECT_TRUE(recorder.raised.isEmpty());
}

TEST(AlertEvaluator, LiveLoadSamplesOutrankStaleMetricsGauges)
{
    AlertEvaluator evaluator;
    Recorder recorder(evaluator);
    evaluator.setWatches({stuckWatch(decode, 5)});
    for (int s = 0; s <= 5; ++s) {
        evaluator.addLoad(load(decode, at(s), 0, 2));
        // SGLang's gauge still shows the batch of its last decode log.
        evaluator.addMetrics(batch(at(s + 0.5), 7, 0));
    }
    ASSERT_EQ(recorder.raised.size(), 1);
    EXPECT_TRUE(recorder.raised.first().text.startsWith(
        QStringLiteral("decode: 2 requests waiting and none running")));
    evaluator.addLoad(load(decode, at(6), 1, 1));
    EXPECT_EQ(recorder.cleared.size(), 1);
}

// The console feeds the evaluator the poller's batches (addAnswers): a batch
// holding a service's live load and its stale gauge counts the load, even the
// first time the two come together.
TEST(AlertEvaluator, ABatchCountsItsLiveLoadsBeforeItsSnapshots)
{
    AlertEvaluator evaluator;
    Recorder recorder(evaluator);
    evaluator.setWatches({stuckWatch(decode, 5)});
    for (int s = 0; s <= 5; ++s) {
        probes::PollAnswers answers;
        answers.snapshots = {batch(at(s), 7, 0)};
        answers.loads = {load(decode, at(s), 0, 2)};
        evaluator.addAnswers(answers);
    }
    ASSERT_EQ(recorder.raised.size(), 1);
    EXPECT_EQ(recorder.raised.first().sinceMs, at(0)) << "stuck from the first batch's load";
    EXPECT_EQ(recorder.raised.first().atMs, at(5));
    probes::PollAnswers running;
    running.loads = {load(decode, at(6), 1, 1)};
    evaluator.addAnswers(running);
    EXPECT_EQ(recorder.cleared.size(), 1);
}

TEST(AlertEvaluator, OnlyTheWatchedServiceCounts)
{
    AlertEvaluator evaluator;
    Recorder recorder(evaluator);
    evaluator.setWatches({stuckWatch(QStringLiteral("decode-b"), 1)});
    for (int s = 0; s <= 5; ++s)
        evaluator.addMetrics(batch(at(s), 0, 3)); // "decode", not watched
    EXPECT_TRUE(recorder.raised.isEmpty());
}

TEST(AlertEvaluator, FailuresRisingFor30sRaisesAndTenQuietSecondsClear)
{
    AlertEvaluator evaluator;
    Recorder recorder(evaluator);
    evaluator.setWatches({failuresWatch(30)});
    // The first page has no rate yet: a missing sample.
    evaluator.addMetrics(snapshot(decode, at(0), {{"running", 1}}));
    for (int s = 1; s <= 30; ++s) {
        evaluator.addMetrics(snapshot(prefill, at(s), {{"bootstrap_failures_per_s", 0}}));
        evaluator.addMetrics(
            snapshot(decode, at(s + 0.1),
                     {{"transfer_failures_per_s", 2}, {"bootstrap_failures_per_s", 0}}));
    }
    EXPECT_TRUE(recorder.raised.isEmpty()) << "failing for 29 s (1.1 .. 30.1) is not yet 30";
    evaluator.addMetrics(snapshot(
        decode, at(31.1),
        {{"transfer_failures_per_s", 1.5}, {"bootstrap_failures_per_s", 9.9999}})); // prints as 10
    ASSERT_EQ(recorder.raised.size(), 1);
    const Alert &alert = recorder.raised.first();
    EXPECT_EQ(alert.kind, AlertKind::FailuresRising);
    EXPECT_EQ(alert.target, cluster);
    EXPECT_EQ(alert.sinceMs, at(1.1));
    EXPECT_EQ(alert.text, QStringLiteral("cluster main: decode counts 1.5 KV transfer failures/s "
                                         "and 10 bootstrap failures/s; failing for 30 s"));

    // Quiet seconds between failures do not clear it...
    for (int s = 32; s <= 40; ++s)
        evaluator.addMetrics(snapshot(decode, at(s + 0.1), {{"transfer_failures_per_s", 0}}));
    evaluator.addMetrics(snapshot(decode, at(41.1), {{"transfer_failures_per_s", 0.5}}));
    EXPECT_TRUE(recorder.cleared.isEmpty());
    // ...ten without any do.
    for (int s = 42; s <= 50; ++s)
        evaluator.addMetrics(snapshot(decode, at(s + 0.1), {{"transfer_failures_per_s", 0}}));
    EXPECT_TRUE(recorder.cleared.isEmpty()) << "9 s since the last failure";
    evaluator.addMetrics(snapshot(decode, at(51.1), {{"transfer_failures_per_s", 0}}));
    ASSERT_EQ(recorder.cleared.size(), 1);
    EXPECT_EQ(recorder.raised.size(), 1);
}

TEST(AlertEvaluator, FailuresOfAServiceOutsideTheClusterAreNotCounted)
{
    AlertEvaluator evaluator;
    Recorder recorder(evaluator);
    evaluator.setWatches({failuresWatch(2)});
    for (int s = 0; s <= 10; ++s)
        evaluator.addMetrics(
            snapshot(QStringLiteral("decode-other"), at(s), {{"bootstrap_failures_per_s", 3}}));
    EXPECT_TRUE(recorder.raised.isEmpty());
    for (int s = 11; s <= 13; ++s)
        evaluator.addMetrics(snapshot(prefill, at(s), {{"bootstrap_failures_per_s", 3}}));
    ASSERT_EQ(recorder.raised.size(), 1);
    EXPECT_TRUE(recorder.raised.first().text.contains(QStringLiteral("prefill counts 0 KV "
                                                                     "transfer failures/s and 3 "
                                                                     "bootstrap")));
}

TEST(AlertEvaluator, E2eFailingTwiceWhileHealthIs200RaisesOnceAndASuccessfulProbeClears)
{
    AlertEvaluator evaluator;
    Recorder recorder(evaluator);
    evaluator.setWatches({e2eWatch()});
    evaluator.addStatus(health(router, at(0), 200, at(0)));
    evaluator.addProbeResult(probe(cluster, router, at(1), 200));
    EXPECT_TRUE(recorder.raised.isEmpty());

    const QString error = QStringLiteral("HTTP 503: No healthy decode worker");
    evaluator.addProbeResult(probe(cluster, router, at(31), 503, error));
    EXPECT_TRUE(recorder.raised.isEmpty()) << "one failure is not yet an alert";
    evaluator.addProbeResult(probe(cluster, router, at(36), 503, error));
    ASSERT_EQ(recorder.raised.size(), 1);
    const Alert &alert = recorder.raised.first();
    EXPECT_EQ(alert.kind, AlertKind::E2eFailing);
    EXPECT_EQ(alert.target, cluster);
    EXPECT_EQ(alert.sinceMs, at(31)) << "since the first of the two failures";
    EXPECT_EQ(alert.atMs, at(36));
    EXPECT_EQ(alert.text,
              QStringLiteral("cluster main: router router answers /health with 200, but the last 2 "
                             "end-to-end chat completions through it failed, the last after 12 ms: "
                             "HTTP 503: No healthy decode worker"));
    for (int s = 37; s <= 60; ++s)
        evaluator.addStatus(health(router, at(s), 200, at(0)));
    evaluator.addProbeResult(probe(cluster, router, at(61), 503, error));
    EXPECT_EQ(recorder.raised.size(), 1) << "raised once";
    EXPECT_TRUE(recorder.cleared.isEmpty());

    evaluator.addProbeResult(probe(cluster, router, at(91), 200));
    ASSERT_EQ(recorder.cleared.size(), 1);
    EXPECT_TRUE(recorder.cleared.first().text.contains(QStringLiteral("succeeds again")));
}

TEST(AlertEvaluator, SingleFailedProbesBetweenGoodOnesRaiseNothing)
{
    AlertEvaluator evaluator;
    Recorder recorder(evaluator);
    evaluator.setWatches({e2eWatch()});
    evaluator.addStatus(health(router, at(0), 200, at(0)));
    for (int i = 1; i <= 10; ++i)
        evaluator.addProbeResult(probe(cluster, router, at(i * 30), i % 2 ? 503 : 200,
                                       i % 2 ? QStringLiteral("HTTP 503") : QString()));
    EXPECT_TRUE(recorder.raised.isEmpty());
}

TEST(AlertEvaluator, E2eFailingNeedsHealth200)
{
    AlertEvaluator evaluator;
    Recorder recorder(evaluator);
    evaluator.setWatches({e2eWatch()});
    const QString error = QStringLiteral("Connection refused");
    evaluator.addStatus(health(router, at(0), 0, at(0))); // down: no answer
    evaluator.addProbeResult(probe(cluster, router, at(1), 0, error));
    evaluator.addStatus(health(router, at(2), 503, at(2)));
    evaluator.addProbeResult(probe(cluster, router, at(3), 503, QStringLiteral("HTTP 503")));
    EXPECT_TRUE(recorder.raised.isEmpty()) << "a down or unhealthy entry is the card's news";
    EXPECT_TRUE(evaluator.active().isEmpty());
}

TEST(AlertEvaluator, AProbeFromBeforeTheRecoveryDoesNotRaise)
{
    AlertEvaluator evaluator;
    Recorder recorder(evaluator);
    evaluator.setWatches({e2eWatch()});
    evaluator.addStatus(health(router, at(0), 0, at(0)));
    evaluator.addProbeResult(probe(cluster, router, at(10), 0, QStringLiteral("refused")));
    // The router comes back at 20 s; the last probe (10 s) predates that.
    for (int s = 20; s <= 39; ++s)
        evaluator.addStatus(health(router, at(s), 200, at(20)));
    EXPECT_TRUE(recorder.raised.isEmpty());
    evaluator.addProbeResult(probe(cluster, router, at(40), 502, QStringLiteral("HTTP 502")));
    EXPECT_TRUE(recorder.raised.isEmpty()) << "the failure before it predates the recovery";
    evaluator.addProbeResult(probe(cluster, router, at(45), 502, QStringLiteral("HTTP 502")));
    ASSERT_EQ(recorder.raised.size(), 1);
    EXPECT_EQ(recorder.raised.first().sinceMs, at(40));
}

TEST(AlertEvaluator, AWatchThatDisappearsClearsItsAlert)
{
    AlertEvaluator evaluator;
    Recorder recorder(evaluator);
    evaluator.setWatches({stuckWatch(decode, 1), e2eWatch()});
    evaluator.addMetrics(batch(at(0), 0, 1));
    evaluator.addMetrics(batch(at(1), 0, 1));
    ASSERT_EQ(recorder.raised.size(), 1);
    evaluator.setWatches({stuckWatch(decode, 1), e2eWatch()});
    EXPECT_TRUE(recorder.cleared.isEmpty()) << "the same watch keeps its state";
    EXPECT_EQ(evaluator.active().size(), 1);
    evaluator.setWatches({e2eWatch()});
    ASSERT_EQ(recorder.cleared.size(), 1);
    EXPECT_EQ(recorder.cleared.first().target, decode);
    EXPECT_TRUE(evaluator.active().isEmpty());
}
