// StagedVerification against a real PD cluster of opsdeck-sim: all four
// stages pass on a healthy cluster and are recorded in history; a proxy that
// stalls kept connections fails the keep-alive stage (the incident's
// verification passed there); a dead decode stops the sequence at stage 1; a
// production cluster is refused.
#include "checkhistory.h"
#include "checkjson.h"
#include "pdcluster.h"
#include "probeengine.h"
#include "stagedverification.h"
#include "stallcluster.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <gtest/gtest.h>
#include <mutex>

using namespace opsdeck;
using probes::StagedVerification;

namespace {

StagedVerification::Settings settingsFor(int n)
{
    StagedVerification::Settings settings;
    settings.batch.n = n;
    settings.keepAliveIdleGapS = 0.5;
    return settings;
}

/// The staged verification of a started stall cluster's `pd`, with N = 8.
void verifyStallCluster(test::StallCluster &cluster, probes::VerificationResult &result)
{
    ASSERT_TRUE(cluster.waitReady(std::chrono::seconds(20)));
    const inventory::LoadResult loaded =
        inventory::parseInventory(cluster.inventoryYaml().toUtf8(), QStringLiteral("stall.yaml"));
    ASSERT_TRUE(loaded.inventory);
    probes::ProbeEngine engine;
    StagedVerification verification(engine, *loaded.inventory, QStringLiteral("pd"),
                                    settingsFor(8));
    result = verification.run();
}

} // namespace

TEST(VerificationWithSim, AHealthyClusterPassesEveryStageAndHistoryRecordsIt)
{
    test::PdCluster cluster;
    ASSERT_TRUE(cluster.start()) << cluster.error.toStdString();
    probes::ProbeEngine engine;
    StagedVerification verification(engine, cluster.inventory(), QStringLiteral("pd"),
                                    settingsFor(16));
    std::mutex mutex;
    QStringList events;
    verification.setCallbacks({[&](int index, const probes::VerificationStage &stage) {
                                   std::lock_guard lock(mutex);
                                   events
                                       << QStringLiteral("start %1 %2").arg(index).arg(stage.name);
                               },
                               [&](int index, const probes::VerificationStage &stage) {
                                   std::lock_guard lock(mutex);
                                   events
                                       << QStringLiteral("end %1 %2").arg(index).arg(stage.passed);
                               },
                               {}});
    const probes::VerificationResult result = verification.run();

    ASSERT_TRUE(result.passed)
        << QJsonDocument(probes::verificationToJson(result)).toJson().toStdString();
    EXPECT_EQ(events,
              (QStringList{QStringLiteral("start 0 health"), QStringLiteral("end 0 1"),
                           QStringLiteral("start 1 end-to-end"), QStringLiteral("end 1 1"),
                           QStringLiteral("start 2 keep-alive"), QStringLiteral("end 2 1"),
                           QStringLiteral("start 3 batch-check"), QStringLiteral("end 3 1")}));
    ASSERT_EQ(result.stages.size(), 4);
    for (const auto &stage : result.stages) {
        EXPECT_TRUE(stage.ran && stage.passed) << stage.name.toStdString();
        EXPECT_GT(stage.ms, 0);
        EXPECT_FALSE(stage.criterion.isEmpty());
    }
    EXPECT_TRUE(result.stages[0].detail.contains(QStringLiteral("decode: HTTP 200")))
        << result.stages[0].detail.toStdString();
    EXPECT_TRUE(result.stages[1].detail.startsWith(
        QStringLiteral("router direct (router), model Qwen/Qwen3-8B: HTTP 200")))
        << result.stages[1].detail.toStdString();
    EXPECT_EQ(result.batch.verdict, probes::BatchVerdict::Batched);
    // Without a proxy, the clients' path is the router.
    EXPECT_TRUE(
        result.stages[2].detail.startsWith(QStringLiteral("router direct (router): fresh ")))
        << result.stages[2].detail.toStdString();
    EXPECT_GE(result.ms, result.stages[3].ms);

    // History: one verification row, the batch check's row, one marker.
    QTemporaryDir dataDir;
    history::HistoryStore store(history::HistoryStore::pathIn(dataDir.path()));
    ASSERT_TRUE(store.open()) << store.lastError().toStdString();
    const auto id = history::recordVerification(store, result);
    ASSERT_TRUE(id) << store.lastError().toStdString();
    const auto checks = store.checks(0, std::numeric_limits<qint64>::max());
    ASSERT_EQ(checks.size(), 2);
    QStringList kinds{checks[0].kind, checks[1].kind};
    kinds.sort();
    EXPECT_EQ(kinds, (QStringList{QStringLiteral("batch-check"), QStringLiteral("verification")}));
    const auto verificationRow =
        checks[0].kind == QStringLiteral("verification") ? checks[0] : checks[1];
    EXPECT_EQ(verificationRow.id, *id);
    EXPECT_EQ(verificationRow.cluster, QStringLiteral("pd"));
    const QJsonObject json = QJsonDocument::fromJson(verificationRow.json).object();
    EXPECT_TRUE(json.value(QStringLiteral("passed")).toBool());
    EXPECT_EQ(json.value(QStringLiteral("stages")).toArray().size(), 4);
    EXPECT_FALSE(json.value(QStringLiteral("keepalive_skipped")).toBool(true));
    EXPECT_EQ(json.value(QStringLiteral("batch")).toObject().value(QStringLiteral("verdict")),
              QStringLiteral("BATCHED"));
    const auto markers = store.markers(0, std::numeric_limits<qint64>::max());
    ASSERT_EQ(markers.size(), 1);
    EXPECT_EQ(markers[0].kind, QStringLiteral("verification"));
    EXPECT_EQ(markers[0].timeMs, result.startedAtMs);
    EXPECT_EQ(markers[0].link, QStringLiteral("check:%1").arg(*id));
    EXPECT_TRUE(markers[0].text.startsWith(QStringLiteral("verification pd: passed in ")))
        << markers[0].text.toStdString();
}

TEST(VerificationWithSim, AProxyThatStallsKeptConnectionsFailsTheKeepAliveStage)
{
    test::StallCluster cluster;
    ASSERT_TRUE(cluster.start(3, 0)) << cluster.error.toStdString();
    probes::VerificationResult result;
    ASSERT_NO_FATAL_FAILURE(verifyStallCluster(cluster, result));

    EXPECT_FALSE(result.passed);
    ASSERT_EQ(result.stages.size(), 4);
    EXPECT_TRUE(result.stages[0].passed && result.stages[1].passed)
        << "health and one probe pass, as in the incident";
    const probes::VerificationStage &keepAlive = result.stages[2];
    EXPECT_EQ(keepAlive.name, QStringLiteral("keep-alive"));
    EXPECT_TRUE(keepAlive.criterion.contains(QStringLiteral("via proxy (proxy-0)")));
    EXPECT_TRUE(keepAlive.ran);
    EXPECT_FALSE(keepAlive.passed);
    EXPECT_TRUE(keepAlive.detail.contains(QStringLiteral("a client on a kept connection stalls")))
        << keepAlive.detail.toStdString();
    EXPECT_FALSE(result.stages[3].ran) << "the batch check does not run after a failed stage";
    EXPECT_EQ(result.failedStage(), 2);
}

TEST(VerificationWithSim, ARouterStallBehindThePoolingProxyFailsTheKeepAliveStage)
{
    // The proxy forwards over kept upstream connections: behind it even a new
    // client connection stalls, so "reused no slower than fresh" alone passed.
    test::StallCluster cluster;
    ASSERT_TRUE(cluster.start(0, 2)) << cluster.error.toStdString();
    probes::VerificationResult result;
    ASSERT_NO_FATAL_FAILURE(verifyStallCluster(cluster, result));

    EXPECT_FALSE(result.passed);
    ASSERT_EQ(result.stages.size(), 4);
    EXPECT_TRUE(result.stages[1].passed) << result.stages[1].detail.toStdString();
    const probes::VerificationStage &keepAlive = result.stages[2];
    EXPECT_FALSE(keepAlive.passed);
    EXPECT_TRUE(keepAlive.detail.contains(QStringLiteral("stall")))
        << keepAlive.detail.toStdString();
    EXPECT_EQ(result.failedStage(), 2);
}

TEST(VerificationWithSim, SkippingTheKeepAliveStageLeavesThreeStagesAndSaysSo)
{
    test::PdCluster cluster;
    ASSERT_TRUE(cluster.start()) << cluster.error.toStdString();
    probes::ProbeEngine engine;
    StagedVerification::Settings settings = settingsFor(8);
    settings.keepAlive = false;
    StagedVerification verification(engine, cluster.inventory(), QStringLiteral("pd"), settings);
    const probes::VerificationResult result = verification.run();
    ASSERT_EQ(result.stages.size(), 3);
    EXPECT_EQ(result.stage(QStringLiteral("keep-alive")), nullptr);
    EXPECT_TRUE(result.keepAliveSkipped);
    EXPECT_TRUE(
        probes::verificationToJson(result).value(QStringLiteral("keepalive_skipped")).toBool());
}

TEST(VerificationWithSim, ADeadDecodeStopsTheSequenceAtTheHealthStage)
{
    test::PdCluster cluster;
    ASSERT_TRUE(cluster.start()) << cluster.error.toStdString();
    const inventory::Inventory inventory = cluster.inventory();
    cluster.decode.stop();
    probes::ProbeEngine engine;
    StagedVerification verification(engine, inventory, QStringLiteral("pd"), settingsFor(4));
    int started = 0;
    verification.setCallbacks({[&](int, const probes::VerificationStage &) { ++started; }, {}, {}});
    const probes::VerificationResult result = verification.run();

    EXPECT_FALSE(result.passed);
    EXPECT_EQ(result.failedStage(), 0);
    EXPECT_EQ(started, 1) << "later stages never started";
    ASSERT_EQ(result.stages.size(), 4);
    EXPECT_TRUE(result.stages[0].ran);
    EXPECT_FALSE(result.stages[0].passed);
    for (int later = 1; later < 4; ++later)
        EXPECT_FALSE(result.stages[later].ran) << later;
    EXPECT_TRUE(result.stages[0].detail.contains(QStringLiteral("router: HTTP 200")))
        << result.stages[0].detail.toStdString();
    EXPECT_FALSE(result.stages[0].detail.contains(QStringLiteral("decode: HTTP 200")))
        << result.stages[0].detail.toStdString();
    EXPECT_EQ(result.batch.verdict, probes::BatchVerdict::None);

    QTemporaryDir dataDir;
    history::HistoryStore store(history::HistoryStore::pathIn(dataDir.path()));
    ASSERT_TRUE(store.open());
    ASSERT_TRUE(history::recordVerification(store, result));
    EXPECT_EQ(store.checks(0, std::numeric_limits<qint64>::max()).size(), 1) << "no batch row";
    const auto markers = store.markers(0, std::numeric_limits<qint64>::max());
    ASSERT_EQ(markers.size(), 1);
    EXPECT_TRUE(markers[0].text.startsWith(QStringLiteral("verification pd: failed at health: ")))
        << markers[0].text.toStdString();
}

// A member whose API key cannot be read is never asked without it: the health
// stage fails with the reason, whatever the member would have answered.
TEST(VerificationWithSim, AMemberWithoutItsKeyFailsTheHealthStageUnasked)
{
    test::PdCluster cluster;
    ASSERT_TRUE(cluster.start()) << cluster.error.toStdString();
    inventory::Inventory inventory = cluster.inventory();
    for (inventory::Service &service : inventory.services)
        if (service.role == inventory::Role::Prefill)
            service.http.apiKeySecret = QStringLiteral("http/prefill/api-key");
    probes::ProbeEngine engine;
    StagedVerification verification(engine, inventory, QStringLiteral("pd"), settingsFor(4));
    const probes::VerificationResult result = verification.run();

    EXPECT_FALSE(result.passed);
    EXPECT_EQ(result.failedStage(), 0);
    const QString &detail = result.stages[0].detail;
    EXPECT_TRUE(
        detail.contains(QStringLiteral("API key http/prefill/api-key needs the secret store")))
        << detail.toStdString();
    EXPECT_FALSE(detail.contains(QStringLiteral("prefill: HTTP"))) << detail.toStdString();
    EXPECT_TRUE(detail.contains(QStringLiteral("decode: HTTP 200"))) << detail.toStdString();
}

TEST(VerificationWithSim, AProductionClusterIsRefusedBeforeAnyStage)
{
    test::PdCluster cluster;
    ASSERT_TRUE(cluster.start()) << cluster.error.toStdString();
    probes::ProbeEngine engine;
    StagedVerification verification(engine, cluster.inventory(QStringLiteral("router")),
                                    QStringLiteral("pd"), settingsFor(4));
    int started = 0;
    verification.setCallbacks({[&](int, const probes::VerificationStage &) { ++started; }, {}, {}});
    const probes::VerificationResult result = verification.run();
    EXPECT_TRUE(result.confirmationRequired);
    EXPECT_FALSE(result.passed);
    EXPECT_EQ(started, 0);
    EXPECT_TRUE(result.error.contains(QStringLiteral("production services (router)")))
        << result.error.toStdString();
}
