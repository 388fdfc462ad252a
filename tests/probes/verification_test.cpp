// StagedVerification against a real PD cluster of opsdeck-sim: all three
// stages pass on a healthy cluster and are recorded in history; a dead
// decode stops the sequence at stage 1; a production cluster is refused.
#include "checkhistory.h"
#include "checkjson.h"
#include "pdcluster.h"
#include "probeengine.h"
#include "stagedverification.h"

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
    return settings;
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
                           QStringLiteral("start 2 batch-check"), QStringLiteral("end 2 1")}));
    ASSERT_EQ(result.stages.size(), 3);
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
    EXPECT_GE(result.ms, result.stages[2].ms);

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
    EXPECT_EQ(json.value(QStringLiteral("stages")).toArray().size(), 3);
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
    ASSERT_EQ(result.stages.size(), 3);
    EXPECT_TRUE(result.stages[0].ran);
    EXPECT_FALSE(result.stages[0].passed);
    EXPECT_FALSE(result.stages[1].ran);
    EXPECT_FALSE(result.stages[2].ran);
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
