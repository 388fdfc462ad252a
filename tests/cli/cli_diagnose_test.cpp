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
