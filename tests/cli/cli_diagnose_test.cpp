// opsdeck-cli diagnose against a real PD cluster of opsdeck-sim behind a
// proxy: the JSON keys of the contract, exit 1 and a "diagnosis" marker in
// history when the proxy stalls reused connections, exit 0 and `stall: null`
// without a fault, exit 2 for an unknown cluster.
#include "../probes/stallcluster.h"
#include "clitest.h"
#include "historystore.h"
#include "testsupport.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace std::chrono_literals;
using namespace Qt::StringLiterals;
using opsdeck::test::runCli;
using opsdeck::test::StallCluster;

namespace {

QStringList diagnoseArgs(const QString &inventory, const QString &dataDir)
{
    return {u"diagnose"_s, u"--inventory"_s, inventory,       u"--cluster"_s,
            u"pd"_s,       u"--rounds"_s,    u"3"_s,          u"--idle-gap"_s,
            u"0.5"_s,      u"--json"_s,      u"--data-dir"_s, dataDir};
}

} // namespace

TEST(CliDiagnose, AProxyStallIsNamedInJsonAndMarkedInHistory)
{
    StallCluster cluster;
    ASSERT_TRUE(cluster.start(3, 0)) << cluster.error.toStdString();
    ASSERT_TRUE(cluster.waitReady(20s));
    QTemporaryDir dir;
    const QString inventory = opsdeck::test::writeInventory(dir, cluster.inventoryYaml());
    const qint64 before = QDateTime::currentMSecsSinceEpoch();
    const auto run = runCli(diagnoseArgs(inventory, dir.path()), dir.path(), 90s);
    ASSERT_EQ(run.exitCode, 1) << run.standardError.toStdString();
    const QJsonObject json = run.json().object();
    ASSERT_TRUE(json.value(u"stall"_s).isObject()) << run.standardOutput.toStdString();
    const QJsonObject stall = json.value(u"stall"_s).toObject();
    EXPECT_EQ(stall.value(u"hop"_s).toString(), u"proxy-0"_s);
    EXPECT_EQ(stall.value(u"role"_s).toString(), u"proxy"_s);
    EXPECT_TRUE(stall.value(u"evidence"_s).toString().startsWith(u"reused via proxy (proxy-0)"_s));

    const QJsonArray paths = json.value(u"paths"_s).toArray();
    ASSERT_EQ(paths.size(), 4);
    const QJsonObject viaProxy = paths.at(0).toObject();
    EXPECT_EQ(viaProxy.value(u"name"_s).toString(), u"via proxy"_s);
    EXPECT_EQ(viaProxy.value(u"entry"_s).toString(), u"proxy-0"_s);
    EXPECT_EQ(viaProxy.value(u"role"_s).toString(), u"proxy"_s);
    EXPECT_EQ(viaProxy.value(u"stale_count"_s).toInt(-1), 0);
    EXPECT_EQ(viaProxy.value(u"stalling_rounds"_s).toInt(), 3);
    const QJsonArray proxyRounds = viaProxy.value(u"rounds"_s).toArray();
    ASSERT_EQ(proxyRounds.size(), 3);
    for (const QJsonValue &round : proxyRounds) {
        EXPECT_TRUE(round.toObject().value(u"reused_timed_out"_s).toBool());
        EXPECT_LT(round.toObject().value(u"fresh_ms"_s).toDouble(), 2000);
        EXPECT_FALSE(round.toObject().value(u"fresh_connection_reused"_s).toBool(true));
    }
    const QJsonObject router = paths.at(1).toObject();
    EXPECT_EQ(router.value(u"entry"_s).toString(), u"router-0"_s);
    for (const QJsonValue &round : router.value(u"rounds"_s).toArray()) {
        EXPECT_EQ(round.toObject().value(u"verdict"_s).toString(), u"clear"_s);
        EXPECT_TRUE(round.toObject().value(u"reused_connection"_s).toBool());
    }

    ASSERT_TRUE(json.value(u"marker_id"_s).isDouble());
    opsdeck::history::HistoryStore store(opsdeck::history::HistoryStore::pathIn(dir.path()));
    ASSERT_TRUE(store.open()) << store.lastError().toStdString();
    const auto markers = store.markers(before, QDateTime::currentMSecsSinceEpoch());
    ASSERT_EQ(markers.size(), 1);
    EXPECT_EQ(markers.first().id, json.value(u"marker_id"_s).toInteger());
    EXPECT_EQ(markers.first().kind, u"diagnosis"_s);
    EXPECT_EQ(markers.first().service, u"proxy-0"_s);
    EXPECT_TRUE(markers.first().text.contains(u"proxy-0"_s));
}

TEST(CliDiagnose, MeasureStallReportsHowLongTheStallReallyLasts)
{
    StallCluster cluster;
    // The proxy holds a reused connection 4 s; the rounds' probes time out at 2 s.
    ASSERT_TRUE(cluster.start(4, 0)) << cluster.error.toStdString();
    ASSERT_TRUE(cluster.waitReady(20s));
    QTemporaryDir dir;
    const QString inventory = opsdeck::test::writeInventory(dir, cluster.inventoryYaml());
    auto run =
        runCli(diagnoseArgs(inventory, dir.path()) + QStringList{u"--measure-stall"_s, u"30s"_s},
               dir.path(), 120s);
    ASSERT_EQ(run.exitCode, 1) << run.standardError.toStdString();
    QJsonObject stall = run.json().object().value(u"stall"_s).toObject();
    EXPECT_EQ(stall.value(u"hop"_s).toString(), u"proxy-0"_s);
    EXPECT_NEAR(stall.value(u"stall_s"_s).toDouble(), 4.0, 0.5) << run.standardOutput.toStdString();
    EXPECT_TRUE(stall.value(u"stall_lower_bound_s"_s).isNull());
    // The rounds' timeouts are shown as bounds, not as the stall's length.
    EXPECT_TRUE(stall.value(u"evidence"_s).toString().contains(u"> 2.0 s (timed out)"_s))
        << stall.value(u"evidence"_s).toString().toStdString();

    // A deadline shorter than the stall gives a lower bound, never a length.
    run =
        runCli(diagnoseArgs(inventory, dir.path()) + QStringList{u"--measure-stall"_s, u"2000ms"_s},
               dir.path(), 120s);
    ASSERT_EQ(run.exitCode, 1) << run.standardError.toStdString();
    stall = run.json().object().value(u"stall"_s).toObject();
    EXPECT_TRUE(stall.value(u"stall_s"_s).isNull());
    EXPECT_EQ(stall.value(u"stall_lower_bound_s"_s).toDouble(), 2.0);

    // Without the flag nothing is measured.
    run = runCli(diagnoseArgs(inventory, dir.path()), dir.path(), 120s);
    stall = run.json().object().value(u"stall"_s).toObject();
    EXPECT_TRUE(stall.contains(u"stall_s"_s));
    EXPECT_TRUE(stall.value(u"stall_s"_s).isNull());
    EXPECT_EQ(runCli({u"diagnose"_s, u"--inventory"_s, inventory, u"--cluster"_s, u"pd"_s,
                      u"--measure-stall"_s, u"0"_s},
                     dir.path())
                  .exitCode,
              2);
}

TEST(CliDiagnose, NoFaultGivesANullStallAndExitZero)
{
    StallCluster cluster;
    ASSERT_TRUE(cluster.start(0, 0)) << cluster.error.toStdString();
    ASSERT_TRUE(cluster.waitReady(20s));
    QTemporaryDir dir;
    const QString inventory = opsdeck::test::writeInventory(dir, cluster.inventoryYaml());
    const auto run = runCli(diagnoseArgs(inventory, dir.path()), dir.path(), 90s);
    ASSERT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    const QJsonObject json = run.json().object();
    ASSERT_TRUE(json.contains(u"stall"_s));
    EXPECT_TRUE(json.value(u"stall"_s).isNull());
    EXPECT_EQ(json.value(u"paths"_s).toArray().size(), 4);
    EXPECT_TRUE(json.value(u"marker_id"_s).isNull());
    EXPECT_FALSE(json.value(u"inconclusive"_s).toBool(true));
    EXPECT_TRUE(json.value(u"inconclusive_reason"_s).isNull());
}

TEST(CliDiagnose, NoStallWhileAPathNeverAnsweredIsInconclusiveNotNoStall)
{
    StallCluster cluster;
    ASSERT_TRUE(cluster.start(0, 0)) << cluster.error.toStdString();
    ASSERT_TRUE(cluster.waitReady(20s));
    cluster.decode.stop();
    QTemporaryDir dir;
    const QString inventory = opsdeck::test::writeInventory(dir, cluster.inventoryYaml());
    const auto run = runCli(diagnoseArgs(inventory, dir.path()), dir.path(), 90s);
    EXPECT_EQ(run.exitCode, 3) << run.standardError.toStdString();
    const QJsonObject json = run.json().object();
    EXPECT_TRUE(json.value(u"stall"_s).isNull());
    EXPECT_TRUE(json.value(u"inconclusive"_s).toBool()) << run.standardOutput.toStdString();
    const QString reason = json.value(u"inconclusive_reason"_s).toString();
    EXPECT_TRUE(reason.contains(u"decode-0"_s)) << reason.toStdString();
    EXPECT_FALSE(reason.contains(u"prefill-0"_s)) << "prefill answered: " << reason.toStdString();

    // The same run for people says so instead of "no stall".
    QStringList args = diagnoseArgs(inventory, dir.path());
    args.removeAll(u"--json"_s);
    const auto text = runCli(args, dir.path(), 90s);
    EXPECT_EQ(text.exitCode, 3);
    EXPECT_TRUE(text.standardOutput.contains("INCONCLUSIVE: "))
        << text.standardOutput.toStdString();
    EXPECT_FALSE(text.standardOutput.contains("no keep-alive stall found"));
}

TEST(CliDiagnose, StallingRoundsTooFewToNameAStallAreInconclusiveNotNoStall)
{
    StallCluster cluster;
    ASSERT_TRUE(cluster.start(2, 0)) << cluster.error.toStdString();
    ASSERT_TRUE(cluster.waitReady(20s));
    QTemporaryDir dir;
    const QString inventory = opsdeck::test::writeInventory(dir, cluster.inventoryYaml());
    QStringList args = diagnoseArgs(inventory, dir.path());
    args[args.indexOf(u"--rounds"_s) + 1] = u"2"_s;
    const auto run = runCli(args, dir.path(), 90s);
    EXPECT_EQ(run.exitCode, 3) << run.standardOutput.toStdString();
    const QJsonObject json = run.json().object();
    EXPECT_TRUE(json.value(u"stall"_s).isNull());
    EXPECT_TRUE(json.value(u"inconclusive"_s).toBool()) << run.standardOutput.toStdString();
    const QString reason = json.value(u"inconclusive_reason"_s).toString();
    EXPECT_TRUE(reason.contains(u"via proxy (proxy-0) stalled in its last 2 of 2 rounds"_s))
        << reason.toStdString();
    EXPECT_FALSE(reason.contains(u"router-0"_s)) << reason.toStdString();
}

TEST(CliDiagnose, BadInputExitsTwoNamingTheFileAndTheCluster)
{
    QTemporaryDir dir;
    const QString inventory = opsdeck::test::writeInventory(
        dir, u"hosts: [{name: local, kind: local}]\n"
             "services:\n"
             "  - {name: e, role: engine, host: local, url: 'http://127.0.0.1:9'}\n"_s);
    auto run =
        runCli({u"diagnose"_s, u"--inventory"_s, inventory, u"--cluster"_s, u"nope"_s}, dir.path());
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_TRUE(run.standardError.contains(inventory.toUtf8())) << run.standardError.toStdString();
    EXPECT_TRUE(run.standardError.contains("no cluster 'nope'")) << run.standardError.toStdString();
    run = runCli({u"diagnose"_s, u"--inventory"_s, inventory, u"--cluster"_s, u"pd"_s,
                  u"--rounds"_s, u"101"_s},
                 dir.path());
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_TRUE(run.standardError.contains("bad --rounds '101'"));
    run = runCli({u"diagnose"_s, u"--inventory"_s, inventory}, dir.path());
    EXPECT_EQ(run.exitCode, 2);
}
