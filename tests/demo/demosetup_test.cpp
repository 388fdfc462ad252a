// The demo folder: serve scripts with their knobs, a valid inventory, free ports.
#include "demosetup.h"
#include "inventory.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace opsdeck;

TEST(DemoFault, ParsesBothHopsAndRefusesTheRest)
{
    QString error;
    const auto proxy = demo::DemoFault::parse(QStringLiteral("proxy-reused-stall=30"), &error);
    ASSERT_TRUE(proxy);
    EXPECT_EQ(proxy->hop, QStringLiteral("proxy"));
    EXPECT_EQ(proxy->seconds, 30);
    const auto router = demo::DemoFault::parse(QStringLiteral("router-reused-stall=2.5"), &error);
    ASSERT_TRUE(router);
    EXPECT_EQ(router->hop, QStringLiteral("router"));
    EXPECT_EQ(router->seconds, 2.5);
    for (const char *bad : {"proxy-reused-stall", "decode-reused-stall=3", "proxy-reused-stall=-1",
                            "proxy-reused-stall=0", "proxy-reused-stall=99999"}) {
        error.clear();
        EXPECT_FALSE(demo::DemoFault::parse(QString::fromLatin1(bad), &error)) << bad;
        EXPECT_TRUE(error.contains(QString::fromLatin1(bad))) << error.toStdString();
    }
}

TEST(DemoSetup, WritesServeScriptsAndALoadableInventory)
{
    QTemporaryDir dir;
    demo::DemoOptions options;
    options.dir = dir.path() + QStringLiteral("/demo");
    options.simBinary = QStringLiteral("/opt/opsdeck/bin/opsdeck-sim");
    options.fault = demo::DemoFault{QStringLiteral("proxy"), 30};
    QString error;
    const auto path = demo::DemoSetup::write(options, &error);
    ASSERT_TRUE(path) << error.toStdString();

    const auto loaded = inventory::loadInventory(*path);
    ASSERT_TRUE(loaded.inventory) << loaded.errors.value(0).toString().toStdString();
    const auto &inv = *loaded.inventory;
    EXPECT_TRUE(inv.armed);
    ASSERT_EQ(inv.services.size(), 4);
    QSet<int> ports;
    for (const auto &service : inv.services) {
        EXPECT_FALSE(service.isProduction());
        EXPECT_FALSE(service.start.isEmpty());
        EXPECT_TRUE(service.start.contains(QStringLiteral("setsid")));
        EXPECT_TRUE(service.start.contains(QStringLiteral("</dev/null")));
        ports.insert(service.url.port());
    }
    EXPECT_EQ(ports.size(), 4) << "each service needs its own port";
    ASSERT_EQ(inv.clusters.size(), 1);
    EXPECT_EQ(inv.clusters[0].router, QStringLiteral("router"));

    QFile decode(options.dir + QStringLiteral("/serve_decode.sh"));
    ASSERT_TRUE(decode.open(QIODevice::ReadOnly));
    const QByteArray script = decode.readAll();
    EXPECT_TRUE(script.contains("export SGLANG_SM120_MMA_TARGET_CTAS=512"));
    EXPECT_TRUE(script.contains("exec \"/opt/opsdeck/bin/opsdeck-sim\" --role decode"));
    EXPECT_TRUE(decode.permissions() & QFileDevice::ExeOwner);

    QFile proxy(options.dir + QStringLiteral("/serve_proxy.sh"));
    ASSERT_TRUE(proxy.open(QIODevice::ReadOnly));
    EXPECT_TRUE(proxy.readAll().contains("--fault reused-stall=30"));
    QFile router(options.dir + QStringLiteral("/serve_router.sh"));
    ASSERT_TRUE(router.open(QIODevice::ReadOnly));
    EXPECT_FALSE(router.readAll().contains("--fault"));
}

TEST(DemoSetup, TwoDemosGetDifferentPorts)
{
    QTemporaryDir dir;
    demo::DemoOptions first;
    first.dir = dir.path() + QStringLiteral("/one");
    first.simBinary = QStringLiteral("opsdeck-sim");
    demo::DemoOptions second = first;
    second.dir = dir.path() + QStringLiteral("/two");
    QString error;
    const auto a = inventory::loadInventory(*demo::DemoSetup::write(first, &error));
    const auto b = inventory::loadInventory(*demo::DemoSetup::write(second, &error));
    ASSERT_TRUE(a.inventory && b.inventory);
    EXPECT_NE(a.inventory->services[0].url.port(), b.inventory->services[0].url.port());
}

TEST(DemoSetup, RefusesAFolderThatWouldBreakShellCommands)
{
    demo::DemoOptions options;
    options.dir = QStringLiteral("/tmp/demo'$(reboot)");
    options.simBinary = QStringLiteral("opsdeck-sim");
    QString error;
    EXPECT_FALSE(demo::DemoSetup::write(options, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("unsafe"))) << error.toStdString();
}

// `demo up --dir` into a folder of the person's own once wrote its
// inventory.yaml and serve scripts over theirs, without a word. Refused,
// naming them; a demo's own folder is still replaced.
TEST(DemoSetup, NeverWritesOverAFolderThatIsNotADemos)
{
    QTemporaryDir dir;
    demo::DemoOptions options;
    options.dir = dir.path();
    options.simBinary = QStringLiteral("opsdeck-sim");
    const QByteArray mine = "# my cluster\nhosts: []\n";
    QFile inventory(dir.filePath(QStringLiteral("inventory.yaml")));
    ASSERT_TRUE(inventory.open(QIODevice::WriteOnly));
    inventory.write(mine);
    inventory.close();
    QString error;
    EXPECT_FALSE(demo::DemoSetup::write(options, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("holds inventory.yaml, which the demo would write "
                                              "over")))
        << error.toStdString();
    ASSERT_TRUE(inventory.open(QIODevice::ReadOnly));
    EXPECT_EQ(inventory.readAll(), mine);
    inventory.close();

    // A deployment's folder: its own serve script beside a run/ folder.
    ASSERT_TRUE(QFile::remove(inventory.fileName()));
    ASSERT_TRUE(QDir(dir.path()).mkpath(QStringLiteral("run")));
    const QByteArray script = "#!/bin/bash\n# my production decode\n";
    QFile serve(dir.filePath(QStringLiteral("serve_decode.sh")));
    ASSERT_TRUE(serve.open(QIODevice::WriteOnly));
    serve.write(script);
    serve.close();
    EXPECT_FALSE(demo::DemoSetup::write(options, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("holds serve_decode.sh, which the demo would write "
                                              "over")))
        << error.toStdString();
    ASSERT_TRUE(serve.open(QIODevice::ReadOnly));
    EXPECT_EQ(serve.readAll(), script);
    serve.close();

    ASSERT_TRUE(serve.remove());
    ASSERT_TRUE(demo::DemoSetup::write(options, &error)) << error.toStdString();
    EXPECT_TRUE(demo::DemoSetup::write(options, &error))
        << "a demo's folder: " << error.toStdString();
}

// A demo's own folder with a link where it writes (a serve script of the
// person's linked in to try it, a log linked to a file of theirs) once had
// the file the link names replaced, its mode changed: refused, naming the
// links, and the files they name stay as they were.
TEST(DemoSetup, NeverWritesThroughALink)
{
    QTemporaryDir dir;
    demo::DemoOptions options;
    options.dir = dir.filePath(QStringLiteral("demo"));
    options.simBinary = QStringLiteral("opsdeck-sim");
    QString error;
    ASSERT_TRUE(demo::DemoSetup::write(options, &error)) << error.toStdString();
    const QString mine = dir.filePath(QStringLiteral("my_serve_decode.sh"));
    const QByteArray script = "#!/bin/bash\n# my tuned decode\n";
    ASSERT_TRUE(test::writeFile(mine, script));
    const QString notes = dir.filePath(QStringLiteral("notes.txt"));
    ASSERT_TRUE(test::writeFile(notes, "my notes\n"));
    for (const auto &[name, target] : {std::pair{QStringLiteral("serve_decode.sh"), mine},
                                       std::pair{QStringLiteral("logs/prefill.log"), notes}}) {
        const QString at = QDir(options.dir).filePath(name);
        QFile::remove(at);
        ASSERT_TRUE(QFile::link(target, at));
        EXPECT_FALSE(demo::DemoSetup::write(options, &error));
        EXPECT_TRUE(
            error.contains(QStringLiteral("holds links where the demo writes (%1)").arg(name)))
            << error.toStdString();
        ASSERT_TRUE(QFile::remove(at));
    }
    EXPECT_EQ(test::readFile(mine), script);
    EXPECT_EQ(test::readFile(notes), "my notes\n");
    EXPECT_TRUE(demo::DemoSetup::write(options, &error)) << error.toStdString();
}

TEST(DemoOptions, TheWindowAndTheCliReadTheSameFlagsTheSameWay)
{
    QString error;
    const auto defaults = demo::DemoOptions::fromFlags({}, &error);
    ASSERT_TRUE(defaults) << error.toStdString();
    EXPECT_EQ(defaults->trafficClients, 8);
    EXPECT_FALSE(defaults->fault);
    EXPECT_TRUE(defaults->dir.endsWith(QStringLiteral("/demo"))) << defaults->dir.toStdString();

    demo::DemoOptions::Flags flags;
    flags.dir = QStringLiteral("/tmp/d");
    flags.traffic = QStringLiteral("0");
    flags.fault = QStringLiteral("proxy-reused-stall=20");
    flags.transferBackend = QStringLiteral("nixl");
    const auto given = demo::DemoOptions::fromFlags(flags, &error);
    ASSERT_TRUE(given) << error.toStdString();
    EXPECT_EQ(given->dir, QStringLiteral("/tmp/d"));
    EXPECT_EQ(given->trafficClients, 0);
    ASSERT_TRUE(given->fault);
    EXPECT_EQ(given->fault->hop, QStringLiteral("proxy"));
    EXPECT_EQ(given->transferBackend, QStringLiteral("nixl"));

    for (const char *bad : {"1.5", "-1", "257", "+4", " 4", "1e2"}) {
        demo::DemoOptions::Flags traffic;
        traffic.traffic = QString::fromLatin1(bad);
        EXPECT_FALSE(demo::DemoOptions::fromFlags(traffic, &error)) << bad;
        EXPECT_TRUE(error.startsWith(QStringLiteral("bad --traffic '%1'").arg(QLatin1String(bad))))
            << error.toStdString();
    }
    demo::DemoOptions::Flags backend;
    backend.transferBackend = QStringLiteral("rdma");
    EXPECT_FALSE(demo::DemoOptions::fromFlags(backend, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("mooncake or nixl"))) << error.toStdString();
}
