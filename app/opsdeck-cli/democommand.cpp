#include "democommand.h"

#include "apppaths.h"
#include "clioutput.h"
#include "clusterlock.h"
#include "democluster.h"
#include "inventory.h"
#include "numberoption.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonObject>
#include <cstdio>

namespace opsdeck::cli {

namespace {

QString demoDir(const QCommandLineParser &parser)
{
    const QString dir = parser.value(QStringLiteral("dir"));
    return dir.isEmpty() ? settings::AppPaths::demoDir(parser.value(QStringLiteral("data-dir")))
                         : dir;
}

// A workflow running on the demo restarts the services it stops, so a stop
// now would be undone behind the person's back: its cluster lock in the
// folder, not past its expiry, refuses down and a replacing up (--force
// overrides). Empty: no workflow holds the demo.
QString workflowOnTheDemo(const QString &dir)
{
    const auto loaded = inventory::loadInventory(demo::DemoSetup::inventoryPath(dir));
    if (!loaded.inventory)
        return {};
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const inventory::Cluster &cluster : loaded.inventory->clusters) {
        QString host;
        QString error;
        const QString path =
            workflows::ClusterLock::pathFor(*loaded.inventory, cluster.name, &host, &error);
        const QFileInfo info(path);
        QFile file(path);
        // Anything but a plain file there is no lock a workflow took.
        if (path.isEmpty() || info.isSymLink() || !info.isFile() || !file.open(QIODevice::ReadOnly))
            continue;
        const auto holder = workflows::ClusterLock::parse(file.read(4096));
        if (holder && !holder->staleAt(now))
            return QStringLiteral(
                       "a workflow holds the cluster lock %1: %2. It restarts services as it "
                       "goes, so stopping them now would be undone. Let it finish or cancel it "
                       "(Ctrl-C where it runs; `opsdeck-cli workflow abandon %3` if it was "
                       "killed), or give --force to stop every process anyway")
                .arg(path, holder->describe(now), holder->workflow);
    }
    return {};
}

int up(demo::DemoCluster &demo, const QCommandLineParser &parser)
{
    const auto flag = [&parser](const QString &name) -> std::optional<QString> {
        return parser.isSet(name) ? std::optional<QString>(parser.value(name)) : std::nullopt;
    };
    QString error;
    const std::optional<demo::DemoOptions> parsed = demo::DemoOptions::fromFlags(
        {flag(QStringLiteral("dir")), flag(QStringLiteral("data-dir")),
         flag(QStringLiteral("traffic")), flag(QStringLiteral("fault")),
         flag(QStringLiteral("transfer-backend"))},
        &error);
    if (!parsed) {
        printError(error);
        return ExitBadInput;
    }
    const demo::DemoOptions options = *parsed;
    QEventLoop loop;
    int code = ExitFailed;
    QObject::connect(
        &demo, &demo::DemoCluster::upFinished, &loop, [&](bool ok, const QString &detail) {
            if (!ok) {
                printError(QStringLiteral("demo up failed: ") + detail);
            } else if (parser.isSet(QStringLiteral("json"))) {
                printJson(QJsonDocument(QJsonObject{{QStringLiteral("inventory"), detail},
                                                    {QStringLiteral("dir"), options.dir}}));
            } else {
                printLine(detail); // the inventory's path is the last line
            }
            code = ok ? ExitOk : ExitFailed;
            loop.quit();
        });
    demo.up(options);
    loop.exec();
    return code;
}

int down(demo::DemoCluster &demo, const QCommandLineParser &parser)
{
    QEventLoop loop;
    int code = ExitFailed;
    QObject::connect(&demo, &demo::DemoCluster::downFinished, &loop,
                     [&](bool ok, const QString &message) {
                         if (!ok)
                             printError(QStringLiteral("demo down: ") + message);
                         else
                             std::fprintf(stderr, "%s\n", message.toLocal8Bit().constData());
                         code = ok ? ExitOk : ExitFailed;
                         loop.quit();
                     });
    demo.down(demoDir(parser));
    loop.exec();
    return code;
}

} // namespace

int runDemo(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Start (up) or stop (down) a simulated PD cluster on this machine: prefill, "
                       "decode, router and proxy (opsdeck-sim), plus a traffic generator."));
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("up or down"));
    parser.addOption({QStringLiteral("dir"),
                      QStringLiteral("Demo host folder (default <data dir>/demo)."),
                      QStringLiteral("dir")});
    parser.addOption({QStringLiteral("traffic"),
                      QStringLiteral("Concurrent traffic clients, 0 to 256 (default 8)."),
                      QStringLiteral("n")});
    parser.addOption({QStringLiteral("fault"),
                      QStringLiteral("proxy-reused-stall=S or router-reused-stall=S: requests on a "
                                     "reused keep-alive connection stall S seconds at that hop."),
                      QStringLiteral("fault")});
    parser.addOption({QStringLiteral("transfer-backend"),
                      QStringLiteral("KV transfer backend the workers report: mooncake or nixl."),
                      QStringLiteral("backend")});
    parser.addOption({QStringLiteral("force"),
                      QStringLiteral("Stop the demo's processes even while a workflow holds its "
                                     "cluster lock.")});
    parser.addOption(dataDirOption());
    parser.addOption(jsonOption());
    if (!parseArguments(parser, arguments))
        return ExitBadInput;
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    if (positional.size() != 1 || (action != u"up" && action != u"down")) {
        printError(QStringLiteral("usage: opsdeck-cli demo up|down [options]"));
        return ExitBadInput;
    }
    if (action == u"up") {
        QString error;
        if (!demo::DemoSetup::checkDir(demoDir(parser), &error)) {
            printError(error);
            return ExitBadInput;
        }
    }
    if (!parser.isSet(QStringLiteral("force"))) {
        const QString holder = workflowOnTheDemo(demoDir(parser));
        if (!holder.isEmpty()) {
            printError(QStringLiteral("demo %1 refused: ").arg(action) + holder);
            return ExitFailed;
        }
    }
    demo::DemoCluster demo;
    // The demo is recorded by this same program's `record` command.
    demo.setRecorderProgram(QCoreApplication::applicationFilePath());
    QObject::connect(&demo, &demo::DemoCluster::progressed, &demo, [](const QString &line) {
        std::fprintf(stderr, "%s\n", line.toLocal8Bit().constData());
    });
    return action == u"up" ? up(demo, parser) : down(demo, parser);
}

} // namespace opsdeck::cli
