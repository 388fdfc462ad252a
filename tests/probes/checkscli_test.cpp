// opsdeck-cli batch-check and verify against a PD cluster of opsdeck-sim:
// the JSON keys of the contract, the exit codes, the production guard's
// refusal, and the rows left in the history database of --data-dir.
#include "batchcheck.h"
#include "checkjson.h"
#include "clitest.h"
#include "historystore.h"
#include "pdcluster.h"
#include "probeengine.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace opsdeck;
using test::runCli;

namespace {

class ChecksCli : public ::testing::Test
{
protected:
    void SetUp() override { ASSERT_TRUE(m_cluster.start()) << m_cluster.error.toStdString(); }
    QString inventoryFile(const QString &productionService = {})
    {
        return test::writeInventory(m_dir, m_cluster.inventoryYaml(productionService));
    }
    QStringList common(const QString &command, const QString &inventory) const
    {
        return {command,
                QStringLiteral("--inventory"),
                inventory,
                QStringLiteral("--cluster"),
                QStringLiteral("pd"),
                QStringLiteral("--data-dir"),
                dataDir()};
    }
    QString dataDir() const { return m_dir.path() + QStringLiteral("/data"); }
    QVector<history::CheckRecord> savedChecks() const
    {
        history::HistoryStore store(history::HistoryStore::pathIn(dataDir()));
        EXPECT_TRUE(store.open()) << store.lastError().toStdString();
        return store.checks(0, std::numeric_limits<qint64>::max());
    }

    test::PdCluster m_cluster;
    QTemporaryDir m_dir;
};

} // namespace

TEST_F(ChecksCli, BatchCheckJsonHasTheContractKeysAndExitsZeroWhenBatched)
{
    const auto run =
        runCli(common(QStringLiteral("batch-check"), inventoryFile()) +
                   QStringList{QStringLiteral("-n"), QStringLiteral("8"), QStringLiteral("--json")},
               m_dir.path(), std::chrono::seconds(120));
    ASSERT_EQ(run.exitCode, 0) << run.standardError.toStdString()
                               << run.standardOutput.toStdString();
    const QJsonObject json = run.json().object();
    EXPECT_EQ(json.value(QStringLiteral("verdict")).toString(), QStringLiteral("BATCHED"));
    EXPECT_EQ(json.value(QStringLiteral("n")).toInt(), 8);
    EXPECT_GE(json.value(QStringLiteral("peak_running")).toDouble(), 6);
    EXPECT_GT(json.value(QStringLiteral("wall_s")).toDouble(), 0);
    EXPECT_GT(json.value(QStringLiteral("single_s")).toDouble(), 0);
    EXPECT_EQ(json.value(QStringLiteral("failures")).toInt(), 0);
    EXPECT_GT(json.value(QStringLiteral("ttft_p50_ms")).toDouble(), 0);
    EXPECT_EQ(json.value(QStringLiteral("path")).toString(), QStringLiteral("router direct"));
    EXPECT_EQ(json.value(QStringLiteral("requests")).toArray().size(), 8);
    EXPECT_FALSE(json.value(QStringLiteral("samples")).toArray().isEmpty());
    const auto checks = savedChecks();
    ASSERT_EQ(checks.size(), 1);
    EXPECT_EQ(checks[0].kind, QStringLiteral("batch-check"));
}

TEST_F(ChecksCli, AProductionClusterWithoutConfirmExitsTwoAndSaysWhatToPass)
{
    const auto run =
        runCli(common(QStringLiteral("batch-check"), inventoryFile(QStringLiteral("decode"))) +
                   QStringList{QStringLiteral("--json")},
               m_dir.path());
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_TRUE(run.standardError.contains("pass --confirm pd")) << run.standardError.toStdString();
    // --json still gives a document saying why.
    const QJsonObject refused = run.json().object();
    EXPECT_TRUE(refused.value(QStringLiteral("confirmation_required")).toBool())
        << run.standardOutput.toStdString();
    EXPECT_TRUE(refused.value(QStringLiteral("error"))
                    .toString()
                    .contains(QStringLiteral("pass --confirm pd")));
    const auto verify = runCli(
        common(QStringLiteral("verify"), inventoryFile(QStringLiteral("decode"))), m_dir.path());
    EXPECT_EQ(verify.exitCode, 2);
    EXPECT_TRUE(verify.standardError.contains("pass --confirm pd"))
        << verify.standardError.toStdString();

    // A wrong name is called wrong, in JSON too.
    const auto wrong =
        runCli(common(QStringLiteral("verify"), inventoryFile(QStringLiteral("decode"))) +
                   QStringList{QStringLiteral("--confirm"), QStringLiteral("pf"),
                               QStringLiteral("--json")},
               m_dir.path());
    EXPECT_EQ(wrong.exitCode, 2);
    EXPECT_TRUE(wrong.json().object().value(QStringLiteral("confirmation_required")).toBool())
        << wrong.standardOutput.toStdString();
    EXPECT_TRUE(wrong.standardError.contains("--confirm 'pf' does not name the cluster"))
        << wrong.standardError.toStdString();
    EXPECT_TRUE(savedChecks().isEmpty());
}

TEST_F(ChecksCli, VerifyExitsZeroWhenEveryStagePassesAndOneWhenAServiceIsDown)
{
    const QString inventory = inventoryFile();
    const QStringList args =
        common(QStringLiteral("verify"), inventory) +
        QStringList{QStringLiteral("-n"), QStringLiteral("8"), QStringLiteral("--json"),
                    QStringLiteral("--idle-gap"), QStringLiteral("0.5")};
    const auto good = runCli(args, m_dir.path(), std::chrono::seconds(120));
    ASSERT_EQ(good.exitCode, 0) << good.standardError.toStdString()
                                << good.standardOutput.toStdString();
    const QJsonObject passed = good.json().object();
    EXPECT_TRUE(passed.value(QStringLiteral("passed")).toBool());
    const QJsonArray stages = passed.value(QStringLiteral("stages")).toArray();
    ASSERT_EQ(stages.size(), 4);
    QStringList names;
    for (const auto &value : stages) {
        const QJsonObject stage = value.toObject();
        names << stage.value(QStringLiteral("name")).toString();
        EXPECT_TRUE(stage.value(QStringLiteral("passed")).toBool());
        EXPECT_FALSE(stage.value(QStringLiteral("criterion")).toString().isEmpty());
        EXPECT_GT(stage.value(QStringLiteral("ms")).toDouble(), 0);
        EXPECT_FALSE(stage.value(QStringLiteral("detail")).toString().isEmpty());
    }
    EXPECT_EQ(names, (QStringList{QStringLiteral("health"), QStringLiteral("end-to-end"),
                                  QStringLiteral("keep-alive"), QStringLiteral("batch-check")}));
    EXPECT_TRUE(stages[2]
                    .toObject()
                    .value(QStringLiteral("criterion"))
                    .toString()
                    .contains(QStringLiteral("0.5 s idle")));

    m_cluster.prefill.stop();
    const auto bad = runCli(args, m_dir.path(), std::chrono::seconds(60));
    EXPECT_EQ(bad.exitCode, 1) << bad.standardError.toStdString();
    const QJsonArray failed = bad.json().object().value(QStringLiteral("stages")).toArray();
    ASSERT_EQ(failed.size(), 4);
    EXPECT_FALSE(failed[0].toObject().value(QStringLiteral("passed")).toBool());
    EXPECT_TRUE(failed[0]
                    .toObject()
                    .value(QStringLiteral("detail"))
                    .toString()
                    .contains(QStringLiteral("prefill: ")));
    EXPECT_FALSE(failed[1].toObject().value(QStringLiteral("ran")).toBool());
    EXPECT_FALSE(failed[2].toObject().value(QStringLiteral("ran")).toBool());
    EXPECT_FALSE(failed[3].toObject().value(QStringLiteral("ran")).toBool());
    EXPECT_FALSE(bad.json().object().value(QStringLiteral("passed")).toBool());

    // --skip-keepalive leaves the stage out and says so.
    const auto skipped = runCli(common(QStringLiteral("verify"), inventory) +
                                    QStringList{QStringLiteral("-n"), QStringLiteral("8"),
                                                QStringLiteral("--skip-keepalive")},
                                m_dir.path(), std::chrono::seconds(60));
    EXPECT_TRUE(skipped.standardOutput.contains("keep-alive stage skipped"))
        << skipped.standardOutput.toStdString();

    // Three verifications and the first one's batch check are in history.
    const auto checks = savedChecks();
    EXPECT_EQ(checks.size(), 4);
}

TEST_F(ChecksCli, AnUnknownClusterIsBadInputNamingIt)
{
    const auto run = runCli({QStringLiteral("batch-check"), QStringLiteral("--inventory"),
                             inventoryFile(), QStringLiteral("--cluster"), QStringLiteral("nope"),
                             QStringLiteral("--data-dir"), dataDir()},
                            m_dir.path());
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_TRUE(run.standardError.contains("no cluster named 'nope' (clusters: pd)"))
        << run.standardError.toStdString();
}

// The run ended by the single request's timeout: timed_out must say so
// (it said false while the error said "timed out").
TEST(BatchCheckTimeout, ASingleRequestThatTimesOutMarksTheRunTimedOut)
{
    test::PdCluster cluster;
    ASSERT_TRUE(cluster.start({QStringLiteral("--fault"), QStringLiteral("scheduler-stuck")}))
        << cluster.error.toStdString();
    probes::ProbeEngine engine;
    probes::BatchCheck::Settings settings;
    settings.n = 2;
    settings.singleTimeoutMs = 500;
    probes::BatchCheck check(engine, cluster.inventory(), QStringLiteral("pd"), settings);
    const probes::BatchCheckResult result = check.run();
    EXPECT_TRUE(result.timedOut) << result.error.toStdString();
    EXPECT_FALSE(result.cancelled);
    EXPECT_TRUE(result.error.contains(QStringLiteral("the single request")))
        << result.error.toStdString();
    EXPECT_TRUE(probes::batchCheckToJson(result).value(QStringLiteral("timed_out")).toBool());
}
