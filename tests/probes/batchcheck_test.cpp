// BatchCheck against a real PD cluster of opsdeck-sim on loopback: BATCHED
// on the default sim, SERIALIZED when prefill and decode run one request at a
// time, every request accounted for when the deadline or a cancel ends the
// run, and the production guard.
#include "batchcheck.h"
#include "pdcluster.h"
#include "probeengine.h"
#include "testsupport.h"

#include <QElapsedTimer>
#include <QSet>
#include <atomic>
#include <gtest/gtest.h>
#include <thread>

using namespace opsdeck;
using probes::BatchCheck;
using probes::BatchVerdict;

namespace {

const QStringList oneAtATime{QStringLiteral("--max-running-requests"), QStringLiteral("1")};

BatchCheck::Settings settingsFor(int n)
{
    BatchCheck::Settings settings;
    settings.n = n;
    return settings;
}

void expectEveryRequestReported(const probes::BatchCheckResult &result)
{
    ASSERT_EQ(result.requests.size(), result.n);
    for (int i = 0; i < result.n; ++i)
        EXPECT_EQ(result.requests[i].index, i);
}

} // namespace

TEST(BatchCheckWithSim, SixteenRequestsAreBatchedByTheDefaultSim)
{
    test::PdCluster cluster;
    ASSERT_TRUE(cluster.start()) << cluster.error.toStdString();
    probes::ProbeEngine engine;
    BatchCheck check(engine, cluster.inventory(), QStringLiteral("pd"), settingsFor(16));
    std::atomic<int> samplesSeen{0};
    std::atomic<int> lastFinished{0};
    check.setCallbacks(
        {{},
         [&](const probes::BatchRequestOutcome &, int finished, int) { lastFinished = finished; },
         [&](const probes::RunningSample &) { ++samplesSeen; }});
    const probes::BatchCheckResult result = check.run();

    ASSERT_EQ(result.verdict, BatchVerdict::Batched) << result.reason.toStdString();
    EXPECT_TRUE(result.error.isEmpty());
    EXPECT_EQ(result.path, QStringLiteral("router direct"));
    EXPECT_EQ(result.entryService, QStringLiteral("router"));
    EXPECT_EQ(result.model, QStringLiteral("Qwen/Qwen3-8B"));
    EXPECT_EQ(result.n, 16);
    EXPECT_EQ(result.failures, 0);
    EXPECT_GE(result.peakRunning, 12);
    EXPECT_LE(result.peakRunning, 16) << "only the batch's requests run";
    // 128 tokens at the sim's ~10 ms decode step alone.
    EXPECT_GT(result.singleS, 1.0);
    EXPECT_GE(result.n * result.singleS / result.wallS, 2.0) << "faster than one after another";
    EXPECT_EQ(result.samplesSource, QStringLiteral("/v1/loads"));
    ASSERT_GE(result.samples.size(), 3) << "a sample every 250 ms over a >1 s batch";
    for (qsizetype i = 1; i < result.samples.size(); ++i)
        EXPECT_GT(result.samples[i].offsetMs, result.samples[i - 1].offsetMs);
    EXPECT_EQ(samplesSeen.load(), result.samples.size());
    EXPECT_EQ(lastFinished.load(), 16);
    expectEveryRequestReported(result);
    QSet<int> ports;
    for (const auto &request : result.requests) {
        EXPECT_EQ(request.status, 200);
        EXPECT_GT(request.ttftMs, 0);
        EXPECT_LT(request.ttftMs, request.totalMs);
        EXPECT_LE(request.endOffsetMs, result.wallS * 1000.0 + 1);
        ports.insert(request.localPort);
    }
    EXPECT_EQ(ports.size(), 16) << "each request on a connection of its own, like 16 clients";
    EXPECT_TRUE(result.reason.startsWith(QStringLiteral("peak ")) &&
                result.reason.contains(QStringLiteral("of 16 running; 16 requests in ")) &&
                result.reason.contains(QStringLiteral("faster than one after another")))
        << result.reason.toStdString();
}

TEST(BatchCheckWithSim, OneRunningRequestAtATimeIsSerialized)
{
    // 16 requests one at a time: about 16 x single (~21 s).
    const probes::BatchCheckResult result = test::PdCluster::batchCheck(16, oneAtATime);
    ASSERT_EQ(result.verdict, BatchVerdict::Serialized) << result.reason.toStdString();
    EXPECT_EQ(result.failures, 0);
    EXPECT_EQ(result.peakRunning, 1);
    EXPECT_GE(result.wallS, 0.75 * 16 * result.singleS);
    expectEveryRequestReported(result);
    for (const auto &request : result.requests)
        EXPECT_GT(request.ttftMs, 0);
}

TEST(BatchCheckWithSim, SixtyFourRequestsThatAllRanAtOnceAreBatchedThoughTheStepGrew)
{
    // The sim's decode step grows with the batch (10.4 ms alone, 35.6 ms at
    // 64): the batch takes about 3x one request and is still BATCHED.
    const probes::BatchCheckResult result = test::PdCluster::batchCheck(64);
    ASSERT_EQ(result.verdict, BatchVerdict::Batched) << result.reason.toStdString();
    EXPECT_GE(result.peakRunning, 48);
    EXPECT_GT(result.wallS, 2 * result.singleS) << "the case the old rule called PARTIAL";
    EXPECT_EQ(result.failures, 0);
    EXPECT_TRUE(result.reason.contains(QStringLiteral("of 64 running; 64 requests in")))
        << result.reason.toStdString();
}

TEST(BatchCheckWithSim, AnAdmissionLimitOfAQuarterIsPartial)
{
    const probes::BatchCheckResult result =
        test::PdCluster::batchCheck(64, test::admissionLimit(16));
    ASSERT_EQ(result.verdict, BatchVerdict::Partial) << result.reason.toStdString();
    EXPECT_LE(result.peakRunning, 16);
    EXPECT_EQ(result.failures, 0);
}

TEST(BatchCheckWithSim, TheDeadlineEndsTheRunAndUnfinishedRequestsAreReportedNotLost)
{
    test::PdCluster cluster;
    ASSERT_TRUE(cluster.start(oneAtATime)) << cluster.error.toStdString();
    probes::ProbeEngine engine;
    BatchCheck::Settings settings = settingsFor(8);
    settings.deadlineMs = 3000; // room for two of the eight serialized requests
    BatchCheck check(engine, cluster.inventory(), QStringLiteral("pd"), settings);
    const probes::BatchCheckResult result = check.run();

    EXPECT_TRUE(result.timedOut);
    expectEveryRequestReported(result);
    EXPECT_GE(result.failures, 5);
    EXPECT_LT(result.failures, 8) << "the first request finished within 3 s";
    EXPECT_GE(result.wallS, 3.0);
    EXPECT_LT(result.wallS, 8.0) << "cancelled transfers report back promptly";
    EXPECT_EQ(result.verdict, BatchVerdict::Serialized) << result.reason.toStdString();
    EXPECT_TRUE(result.reason.contains(QStringLiteral("requests failed")));
}

TEST(BatchCheckWithSim, CancelEndsARunningCheckWithEveryRequestInTheResult)
{
    test::PdCluster cluster;
    ASSERT_TRUE(cluster.start(oneAtATime)) << cluster.error.toStdString();
    probes::ProbeEngine engine;
    BatchCheck check(engine, cluster.inventory(), QStringLiteral("pd"), settingsFor(8));
    std::atomic<int> samples{0};
    check.setCallbacks({{}, {}, [&](const probes::RunningSample &) { ++samples; }});
    probes::BatchCheckResult result;
    std::thread worker([&] { result = check.run(); });
    QElapsedTimer sinceCancel;
    // Cancel once the batch is on (its first sample was read).
    const bool sampled =
        test::waitUntil([&] { return samples.load() > 0; }, std::chrono::seconds(20));
    check.cancel();
    sinceCancel.start();
    worker.join();
    ASSERT_TRUE(sampled);
    EXPECT_LT(sinceCancel.elapsed(), 5000);
    EXPECT_TRUE(result.cancelled);
    EXPECT_EQ(result.verdict, BatchVerdict::None);
    EXPECT_EQ(result.error, QStringLiteral("cancelled"));
    expectEveryRequestReported(result);
    EXPECT_GE(result.failures, 7);
}

TEST(BatchCheckWithSim, AProductionClusterIsRefusedUnlessTheConfirmationNamesIt)
{
    test::PdCluster cluster;
    ASSERT_TRUE(cluster.start()) << cluster.error.toStdString();
    const inventory::Inventory inventory = cluster.inventory(QStringLiteral("decode"));
    const inventory::Cluster *pd = inventory.cluster(QStringLiteral("pd"));
    ASSERT_TRUE(pd);
    EXPECT_TRUE(BatchCheck::needsConfirmation(inventory, *pd));
    EXPECT_FALSE(BatchCheck::needsConfirmation(cluster.inventory(), *pd));
    probes::ProbeEngine engine;

    BatchCheck::Settings settings = settingsFor(4);
    settings.confirmation = QStringLiteral("decode"); // a service's name is not the cluster's
    const probes::BatchCheckResult refused =
        BatchCheck(engine, inventory, QStringLiteral("pd"), settings).run();
    EXPECT_TRUE(refused.confirmationRequired);
    EXPECT_EQ(refused.verdict, BatchVerdict::None);
    EXPECT_EQ(refused.singleS, 0) << "not even the single request was sent";
    EXPECT_TRUE(refused.requests.isEmpty());
    EXPECT_EQ(refused.error,
              QStringLiteral("cluster pd has production services (decode): a batch check loads "
                             "them with concurrent requests; confirm with the cluster's name "
                             "\"pd\""));

    settings.confirmation = QStringLiteral("pd");
    const probes::BatchCheckResult confirmed =
        BatchCheck(engine, inventory, QStringLiteral("pd"), settings).run();
    EXPECT_FALSE(confirmed.confirmationRequired);
    EXPECT_EQ(confirmed.verdict, BatchVerdict::Batched) << confirmed.reason.toStdString();
}

TEST(BatchCheckWithSim, BadInputIsAnErrorNamingIt)
{
    test::PdCluster cluster;
    ASSERT_TRUE(cluster.start()) << cluster.error.toStdString();
    probes::ProbeEngine engine;
    EXPECT_EQ(
        BatchCheck(engine, cluster.inventory(), QStringLiteral("pd"), settingsFor(257)).run().error,
        QStringLiteral("n 257 is out of range: 1 to 256 concurrent requests"));
    EXPECT_TRUE(BatchCheck(engine, cluster.inventory(), QStringLiteral("nope"), settingsFor(4))
                    .run()
                    .error.startsWith(QStringLiteral("no cluster nope in")));
    BatchCheck::Settings settings = settingsFor(4);
    settings.pathName = QStringLiteral("via proxy");
    EXPECT_EQ(BatchCheck(engine, cluster.inventory(), QStringLiteral("pd"), settings).run().error,
              QStringLiteral("cluster pd has no path named \"via proxy\""));
}
