// A real nginx (Debian nginx-light) pooling its upstream connections in front
// of a sim router that stalls kept-alive connections: diagnose names the
// router, says that nginx pools (so its clients stall even on new
// connections) and lists every path; status calls nginx unresponsive, not
// down. Without the fault, nothing is blamed.
#include "../probes/stallcluster.h"
#include "clitest.h"
#include "nginxprocess.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace std::chrono_literals;
using namespace Qt::StringLiterals;
using opsdeck::test::NginxProcess;
using opsdeck::test::runCli;
using opsdeck::test::StallCluster;

namespace {

/// The cluster's inventory with proxy-0 being nginx instead of the sim proxy.
QString behindNginx(const StallCluster &cluster, const NginxProcess &nginx)
{
    QString yaml = cluster.inventoryYaml();
    yaml.replace(cluster.proxy.url(), nginx.url().toString());
    return yaml;
}

/// The stall cluster (`routerStallS` on the router), nginx in front of its
/// router, and the inventory naming nginx as proxy-0, in `dir`.
struct NginxCluster
{
    StallCluster cluster;
    NginxProcess nginx;
    QString inventory;

    ::testing::AssertionResult start(double routerStallS, const QTemporaryDir &dir)
    {
        if (!cluster.start(0, routerStallS))
            return ::testing::AssertionFailure() << cluster.error.toStdString();
        if (!cluster.waitReady(20s))
            return ::testing::AssertionFailure() << "the router saw no healthy worker";
        if (!nginx.start(QUrl(cluster.router.url())))
            return ::testing::AssertionFailure() << nginx.log().toStdString();
        inventory = opsdeck::test::writeInventory(dir, behindNginx(cluster, nginx));
        return ::testing::AssertionSuccess();
    }
};

QStringList diagnoseArgs(const QString &inventory, const QString &dataDir)
{
    return {u"diagnose"_s, u"--inventory"_s, inventory,       u"--cluster"_s,
            u"pd"_s,       u"--rounds"_s,    u"3"_s,          u"--idle-gap"_s,
            u"0.5"_s,      u"--json"_s,      u"--data-dir"_s, dataDir};
}

QJsonObject serviceNamed(const QJsonArray &services, const QString &name)
{
    for (const QJsonValue &service : services)
        if (service.toObject().value(u"name"_s).toString() == name)
            return service.toObject();
    return {};
}

} // namespace

TEST(CliNginx, ARouterStallBehindPoolingNginxIsTheRoutersAndNginxIsNotBlamed)
{
    QTemporaryDir dir;
    NginxCluster behind;
    // The router holds a reused connection 4 s; probes time out after 2 s.
    ASSERT_TRUE(behind.start(4, dir));
    NginxProcess &nginx = behind.nginx;
    const QString &inventory = behind.inventory;

    const auto run = runCli(diagnoseArgs(inventory, dir.path()), dir.path(), 120s);
    ASSERT_EQ(run.exitCode, 1) << run.standardError.toStdString()
                               << run.standardOutput.toStdString() << nginx.log().toStdString();
    const QJsonObject stall = run.json().object().value(u"stall"_s).toObject();
    EXPECT_EQ(stall.value(u"hop"_s).toString(), u"router-0"_s);
    const QString headline = stall.value(u"headline"_s).toString();
    EXPECT_TRUE(headline.contains(u"through proxy-0, which pools upstream connections, new ones "
                                  "stall too"_s))
        << headline.toStdString();
    EXPECT_FALSE(headline.endsWith(u"fresh ones answer"_s));
    const QString evidence = stall.value(u"evidence"_s).toString();
    for (const QString &path :
         {u"via proxy (proxy-0)"_s, u"decode direct (decode-0)"_s, u"prefill direct (prefill-0)"_s})
        EXPECT_TRUE(evidence.contains(path))
            << path.toStdString() << " in " << evidence.toStdString();
    EXPECT_TRUE(stall.value(u"caution"_s).toString().contains(u"pools its upstream connections"_s));

    // One answered request through nginx leaves a used upstream connection
    // in its pool (one worker); the next fresh health check through nginx
    // lands on it and stalls: nginx accepted the connection and did not
    // answer. Unresponsive, not down, and the detail says whose answer it is.
    const auto warm =
        runCli({u"probe"_s, nginx.url().toString() + u"/health"_s, u"--timeout-ms"_s, u"10000"_s},
               dir.path(), 30s);
    ASSERT_EQ(warm.exitCode, 0) << warm.standardOutput.toStdString();
    const auto status =
        runCli({u"status"_s, u"--inventory"_s, inventory, u"--json"_s, u"--timeout"_s, u"1500"_s},
               dir.path(), 60s);
    EXPECT_EQ(status.exitCode, 1);
    const QJsonObject proxy =
        serviceNamed(status.json().object().value(u"services"_s).toArray(), u"proxy-0"_s);
    EXPECT_EQ(proxy.value(u"state"_s).toString(), u"unresponsive"_s)
        << status.standardOutput.toStdString();
    EXPECT_TRUE(proxy.value(u"detail"_s).toString().contains(u"forwarded upstream"_s))
        << status.standardOutput.toStdString();
}

TEST(CliNginx, WithoutAFaultNginxIsHealthyAndNoStallIsFound)
{
    QTemporaryDir dir;
    NginxCluster behind;
    ASSERT_TRUE(behind.start(0, dir));
    NginxProcess &nginx = behind.nginx;
    const QString &inventory = behind.inventory;
    const auto run = runCli(diagnoseArgs(inventory, dir.path()), dir.path(), 120s);
    EXPECT_EQ(run.exitCode, 0) << run.standardError.toStdString() << nginx.log().toStdString();
    EXPECT_TRUE(run.json().object().value(u"stall"_s).isNull());
    const auto status =
        runCli({u"status"_s, u"--inventory"_s, inventory, u"--json"_s}, dir.path(), 60s);
    EXPECT_EQ(status.exitCode, 0) << status.standardOutput.toStdString();
    EXPECT_EQ(serviceNamed(status.json().object().value(u"services"_s).toArray(), u"proxy-0"_s)
                  .value(u"state"_s)
                  .toString(),
              u"healthy"_s);
}
