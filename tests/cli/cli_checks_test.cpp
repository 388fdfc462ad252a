// opsdeck-cli diagnose, verify and batch-check when things go wrong around
// them: SIGINT/SIGTERM mid-run (cancelled JSON, history, exit 3), a reader
// that goes away (SIGPIPE), a cluster where nothing answers, NaN and infinite
// numbers, and clusters without a router. Real opsdeck-sim processes on
// loopback (tests/probes/pdcluster.h).
#include "../probes/pdcluster.h"
#include "clitest.h"
#include "historystore.h"
#include "probeengine.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <csignal>
#include <gtest/gtest.h>
#include <limits>
#include <memory>
#include <unistd.h>

using namespace std::chrono_literals;
using namespace Qt::StringLiterals;
using namespace opsdeck;
using test::PdCluster;
using test::runCli;

namespace {

/// Waiting requests of an engine, from its /v1/loads; -1 when unread.
int waitingRequests(const QString &engineUrl)
{
    probes::ProbeEngine engine;
    probes::ProbeRequest request;
    request.url = QUrl(engineUrl + u"/v1/loads"_s);
    request.timeoutMs = 1000;
    const probes::ProbeResult result = engine.run(request);
    if (!result.ok())
        return -1;
    int waiting = 0;
    for (const QJsonValue &load :
         QJsonDocument::fromJson(result.body).object().value(u"loads"_s).toArray())
        waiting += load.toObject().value(u"num_waiting_reqs"_s).toInt();
    return waiting;
}

/// A PD cluster whose engines queue every request and never run one
/// (`--fault scheduler-stuck`): health answers, every chat hangs.
bool startStuck(PdCluster &cluster)
{
    return cluster.start({u"--fault"_s, u"scheduler-stuck"_s});
}

std::unique_ptr<QProcess> startCli(const QStringList &arguments, const QString &dataHome)
{
    auto process = std::make_unique<QProcess>();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"XDG_DATA_HOME"_s, dataHome);
    process->setProcessEnvironment(env);
    process->setStandardInputFile(QProcess::nullDevice());
    process->start(test::binPath(u"opsdeck-cli"_s), arguments);
    EXPECT_TRUE(process->waitForStarted());
    return process;
}

QStringList checkArgs(const QString &command, const QString &inventory, const QString &dataDir)
{
    return {command, u"--inventory"_s, inventory, u"--cluster"_s,
            u"pd"_s, u"--data-dir"_s,  dataDir};
}

QVector<history::CheckRecord> savedChecks(const QString &dataDir)
{
    history::HistoryStore store(history::HistoryStore::pathIn(dataDir));
    EXPECT_TRUE(store.open()) << store.lastError().toStdString();
    return store.checks(0, std::numeric_limits<qint64>::max());
}

/// Inventory YAML of `cluster`'s engines with the cluster's members chosen:
/// `withRouter` adds the router, `proxyUrl` (when set) a proxy service.
QString clusterYaml(const PdCluster &cluster, bool withRouter, const QString &proxyUrl = {})
{
    QString yaml = u"hosts: [{name: local, kind: local}]\n"
                   "services:\n"
                   "  - {name: prefill, role: prefill, host: local, url: '%1'}\n"
                   "  - {name: decode, role: decode, host: local, url: '%2'}\n"
                   "  - {name: router, role: router, host: local, url: '%3'}\n"_s.arg(
                       cluster.prefill.url(), cluster.decode.url(), cluster.router.url());
    if (!proxyUrl.isEmpty())
        yaml +=
            u"  - {name: proxy, role: proxy, host: local, url: '%1', metrics_path: none}\n"_s.arg(
                proxyUrl);
    yaml +=
        u"clusters:\n  - {name: pd, prefill: [prefill], decode: [decode]%1%2}\n"
        "alerts: {e2e_interval_s: 0}\n"_s.arg(withRouter ? u", router: router"_s : QString(),
                                              proxyUrl.isEmpty() ? QString() : u", proxy: proxy"_s);
    return yaml;
}

/// Every service of a PD cluster on `port`, where nothing listens.
QString deadYaml(int port)
{
    return u"hosts: [{name: local, kind: local}]\n"
           "services:\n"
           "  - {name: prefill, role: prefill, host: local, url: 'http://127.0.0.1:%1'}\n"
           "  - {name: decode, role: decode, host: local, url: 'http://127.0.0.1:%1'}\n"
           "  - {name: router, role: router, host: local, url: 'http://127.0.0.1:%1'}\n"
           "  - {name: proxy, role: proxy, host: local, url: 'http://127.0.0.1:%1', "
           "metrics_path: none}\n"
           "clusters:\n"
           "  - {name: pd, prefill: [prefill], decode: [decode], router: router, proxy: proxy}\n"
           "alerts: {e2e_interval_s: 0}\n"_s.arg(port);
}

} // namespace

TEST(CliCancel, SigintEndsBatchCheckWithItsJsonHistoryAndExitThree)
{
    PdCluster cluster;
    ASSERT_TRUE(startStuck(cluster)) << cluster.error.toStdString();
    QTemporaryDir dir;
    const QString dataDir = dir.filePath(u"data"_s);
    const QString inventory = test::writeInventory(dir, cluster.inventoryYaml());
    auto cli = startCli(checkArgs(u"batch-check"_s, inventory, dataDir) +
                            QStringList{u"-n"_s, u"4"_s, u"--json"_s},
                        dir.path());
    // The single request is queued in an engine: the check is mid-run.
    ASSERT_TRUE(test::waitUntil(
        [&] {
            return waitingRequests(cluster.decode.url()) > 0 ||
                   waitingRequests(cluster.prefill.url()) > 0;
        },
        20s));
    ::kill(static_cast<pid_t>(cli->processId()), SIGINT);
    ASSERT_TRUE(cli->waitForFinished(10'000));
    EXPECT_EQ(cli->exitStatus(), QProcess::NormalExit);
    EXPECT_EQ(cli->exitCode(), 3) << cli->readAllStandardError().toStdString();
    const QJsonObject json = QJsonDocument::fromJson(cli->readAllStandardOutput()).object();
    EXPECT_TRUE(json.value(u"cancelled"_s).toBool());
    EXPECT_EQ(json.value(u"cluster"_s).toString(), u"pd"_s);
    const auto checks = savedChecks(dataDir);
    ASSERT_EQ(checks.size(), 1);
    EXPECT_EQ(checks[0].kind, u"batch-check"_s);
}

TEST(CliCancel, SigtermEndsVerifyAfterItsHealthStageWithExitThree)
{
    PdCluster cluster;
    ASSERT_TRUE(startStuck(cluster)) << cluster.error.toStdString();
    QTemporaryDir dir;
    const QString dataDir = dir.filePath(u"data"_s);
    const QString inventory = test::writeInventory(dir, cluster.inventoryYaml());
    auto cli = startCli(checkArgs(u"verify"_s, inventory, dataDir) +
                            QStringList{u"-n"_s, u"4"_s, u"--json"_s},
                        dir.path());
    // Stage 2's chat is queued in an engine: stage 1 passed.
    ASSERT_TRUE(test::waitUntil(
        [&] {
            return waitingRequests(cluster.decode.url()) > 0 ||
                   waitingRequests(cluster.prefill.url()) > 0;
        },
        20s));
    ::kill(static_cast<pid_t>(cli->processId()), SIGTERM);
    ASSERT_TRUE(cli->waitForFinished(10'000));
    EXPECT_EQ(cli->exitStatus(), QProcess::NormalExit);
    EXPECT_EQ(cli->exitCode(), 3) << cli->readAllStandardError().toStdString();
    const QJsonObject json = QJsonDocument::fromJson(cli->readAllStandardOutput()).object();
    EXPECT_TRUE(json.value(u"cancelled"_s).toBool());
    EXPECT_FALSE(json.value(u"passed"_s).toBool());
    const QJsonArray stages = json.value(u"stages"_s).toArray();
    ASSERT_EQ(stages.size(), 4);
    EXPECT_TRUE(stages[0].toObject().value(u"passed"_s).toBool());
    EXPECT_FALSE(stages[0].toObject().value(u"cancelled"_s).toBool(true));
    EXPECT_TRUE(stages[1].toObject().value(u"cancelled"_s).toBool());
    EXPECT_FALSE(stages[2].toObject().value(u"ran"_s).toBool());
    EXPECT_FALSE(stages[3].toObject().value(u"ran"_s).toBool());
    const auto checks = savedChecks(dataDir);
    ASSERT_EQ(checks.size(), 1);

    // For people: cancelled, not FAILED (nothing was judged after the cancel).
    auto text = startCli(checkArgs(u"verify"_s, inventory, dataDir) + QStringList{u"-n"_s, u"4"_s},
                         dir.path());
    ASSERT_TRUE(test::waitUntil(
        [&] { return text->state() == QProcess::Running && text->waitForReadyRead(100); }, 20s));
    ::kill(static_cast<pid_t>(text->processId()), SIGTERM);
    ASSERT_TRUE(text->waitForFinished(10'000));
    EXPECT_EQ(text->exitCode(), 3);
    const QString out = QString::fromUtf8(text->readAllStandardOutput());
    EXPECT_TRUE(out.contains(u"verification pd: CANCELLED"_s)) << out.toStdString();
    EXPECT_FALSE(out.contains(u"FAILED"_s)) << out.toStdString();
}

TEST(CliCancel, SigintEndsDiagnoseWithTheRoundsItHadAndExitThree)
{
    PdCluster cluster;
    ASSERT_TRUE(cluster.start()) << cluster.error.toStdString();
    QTemporaryDir dir;
    const QString inventory = test::writeInventory(dir, cluster.inventoryYaml());
    auto cli = startCli({u"diagnose"_s, u"--inventory"_s, inventory, u"--cluster"_s, u"pd"_s,
                         u"--probe"_s, u"health"_s, u"--rounds"_s, u"100"_s, u"--idle-gap"_s,
                         u"1"_s, u"--data-dir"_s, dir.filePath(u"data"_s)},
                        dir.path());
    QByteArray err;
    ASSERT_TRUE(test::waitUntil(
        [&] {
            err += cli->readAllStandardError();
            return err.contains("round 1 done");
        },
        30s));
    const auto started = std::chrono::steady_clock::now();
    ::kill(static_cast<pid_t>(cli->processId()), SIGINT);
    ASSERT_TRUE(cli->waitForFinished(10'000));
    EXPECT_EQ(cli->exitStatus(), QProcess::NormalExit);
    EXPECT_EQ(cli->exitCode(), 3);
    // Not the 99 rounds left (at least 99 s of idle gaps).
    EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
    const QByteArray out = cli->readAllStandardOutput();
    EXPECT_TRUE(out.contains("router direct (router) round 1: ")) << out.toStdString();
    EXPECT_TRUE(out.contains("cancelled after ")) << out.toStdString();
    EXPECT_FALSE(out.contains("no keep-alive stall found")) << out.toStdString();
}

TEST(CliSigpipe, VerifyWhoseReaderLeftStillFinishesAndWritesHistory)
{
    PdCluster cluster;
    ASSERT_TRUE(cluster.start()) << cluster.error.toStdString();
    QTemporaryDir dir;
    const QString dataDir = dir.filePath(u"data"_s);
    const QString inventory = test::writeInventory(dir, cluster.inventoryYaml());
    // Like `| head -0`: stdout is a pipe nobody reads, so the first line
    // written gets EPIPE (SIGPIPE unless ignored).
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    ::close(fds[0]);
    const int writeEnd = fds[1];
    auto cli = std::make_unique<QProcess>();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"XDG_DATA_HOME"_s, dir.path());
    cli->setProcessEnvironment(env);
    cli->setStandardInputFile(QProcess::nullDevice());
    cli->setChildProcessModifier([writeEnd] { ::dup2(writeEnd, STDOUT_FILENO); });
    cli->start(test::binPath(u"opsdeck-cli"_s),
               checkArgs(u"verify"_s, inventory, dataDir) + QStringList{u"-n"_s, u"4"_s});
    ASSERT_TRUE(cli->waitForStarted());
    ::close(writeEnd);
    ASSERT_TRUE(cli->waitForFinished(120'000));
    EXPECT_EQ(cli->exitStatus(), QProcess::NormalExit);
    EXPECT_EQ(cli->exitCode(), 0) << cli->readAllStandardError().toStdString();
    // The verification and its batch check are both in history.
    EXPECT_EQ(savedChecks(dataDir).size(), 2);
}

TEST(CliDiagnoseUnanswered, NoAnswerFromAnyPathIsExitThreeNeverHealthy)
{
    QTemporaryDir dir;
    const QString inventory = test::writeInventory(dir, deadYaml(test::freeTcpPort()));
    const QStringList args{
        u"diagnose"_s,          u"--inventory"_s, inventory,       u"--cluster"_s, u"pd"_s,
        u"--rounds"_s,          u"1"_s,           u"--idle-gap"_s, u"0"_s,         u"--data-dir"_s,
        dir.filePath(u"data"_s)};
    const auto text = runCli(args, dir.path());
    EXPECT_EQ(text.exitCode, 3) << text.standardOutput.toStdString();
    EXPECT_TRUE(text.standardError.contains("no path could be probed: via proxy: "))
        << text.standardError.toStdString();
    EXPECT_FALSE(text.standardOutput.contains("no keep-alive stall found"))
        << text.standardOutput.toStdString();
    EXPECT_TRUE(text.standardOutput.contains("router direct (router): no probe answered: "))
        << text.standardOutput.toStdString();

    const auto json = runCli(args + QStringList{u"--json"_s}, dir.path());
    EXPECT_EQ(json.exitCode, 3);
    EXPECT_TRUE(json.json().object().value(u"inconclusive"_s).toBool());
    EXPECT_TRUE(json.json()
                    .object()
                    .value(u"inconclusive_reason"_s)
                    .toString()
                    .startsWith(u"no path answered: "_s));
    const QJsonArray paths = json.json().object().value(u"paths"_s).toArray();
    ASSERT_EQ(paths.size(), 4) << json.standardOutput.toStdString();
    for (const QJsonValue &path : paths)
        EXPECT_TRUE(
            path.toObject().value(u"problem"_s).toString().startsWith(u"no probe answered: "_s))
            << path.toObject().value(u"name"_s).toString().toStdString();
}

TEST(CliDiagnoseUnanswered, APathThatNeverAnswersIsNamedBesideTheOthers)
{
    PdCluster cluster;
    ASSERT_TRUE(cluster.start()) << cluster.error.toStdString();
    QTemporaryDir dir;
    const QString inventory = test::writeInventory(dir, cluster.inventoryYaml());
    cluster.prefill.stop();
    const QStringList args{u"diagnose"_s,
                           u"--inventory"_s,
                           inventory,
                           u"--cluster"_s,
                           u"pd"_s,
                           u"--probe"_s,
                           u"health"_s,
                           u"--rounds"_s,
                           u"1"_s,
                           u"--idle-gap"_s,
                           u"0"_s,
                           u"--data-dir"_s,
                           dir.filePath(u"data"_s)};
    // No stall seen, but one path never answered: inconclusive (exit 3), not "no stall".
    const auto text = runCli(args, dir.path());
    EXPECT_EQ(text.exitCode, 3) << text.standardError.toStdString();
    EXPECT_TRUE(text.standardOutput.contains("prefill direct (prefill): no probe answered: "))
        << text.standardOutput.toStdString();
    EXPECT_TRUE(text.standardOutput.contains("INCONCLUSIVE: no stall seen on the paths that "
                                             "answered, but 1 of 3 never answered"))
        << text.standardOutput.toStdString();

    const auto json = runCli(args + QStringList{u"--json"_s}, dir.path());
    EXPECT_EQ(json.exitCode, 3);
    EXPECT_TRUE(json.json().object().value(u"inconclusive"_s).toBool());
    for (const QJsonValue &value : json.json().object().value(u"paths"_s).toArray()) {
        const QJsonObject path = value.toObject();
        const QString problem = path.value(u"problem"_s).toString();
        const QString name = path.value(u"name"_s).toString();
        if (name == u"prefill direct"_s) {
            EXPECT_TRUE(problem.startsWith(u"no probe answered: "_s)) << problem.toStdString();
        } else if (name == u"decode direct"_s) {
            EXPECT_TRUE(problem.isEmpty()) << problem.toStdString();
        }
    }
}

TEST(CliNumbers, NanInfinitySignsAndExponentsAreBadInputForEveryNumericFlag)
{
    QTemporaryDir dir;
    const QString inventory = test::writeInventory(dir, deadYaml(test::freeTcpPort()));
    const QStringList diagnose{u"diagnose"_s, u"--inventory"_s, inventory, u"--cluster"_s,
                               u"pd"_s,       u"--rounds"_s,    u"1"_s};
    const QStringList probe{u"probe"_s, u"http://127.0.0.1:%1/health"_s.arg(test::freeTcpPort())};
    const QStringList batch = checkArgs(u"batch-check"_s, inventory, dir.filePath(u"data"_s));
    const QStringList verify = checkArgs(u"verify"_s, inventory, dir.filePath(u"data"_s));
    QVector<QStringList> runs;
    for (const QString &bad : {u"NaN"_s, u"nan"_s, u" nan"_s, u"inf"_s, u"-inf"_s}) {
        runs << diagnose + QStringList{u"--idle-gap"_s, bad}
             << diagnose + QStringList{u"--timeout-ms"_s, bad}
             << probe + QStringList{u"--idle-gap"_s, bad, u"--reused"_s}
             << probe + QStringList{u"--count"_s, bad}
             << probe + QStringList{u"--timeout-ms"_s, bad}
             << probe + QStringList{u"--max-tokens"_s, bad} << batch + QStringList{u"-n"_s, bad}
             << verify + QStringList{u"-n"_s, bad};
    }
    // Numbers a reader could take two ways: a sign, an exponent, a space, a
    // fraction where a count is asked.
    for (const QString &bad : {u"+5"_s, u" 5"_s, u"1e3"_s, u"5."_s}) {
        runs << diagnose + QStringList{u"--measure-stall"_s, bad}
             << diagnose + QStringList{u"--rounds"_s, bad}
             << verify + QStringList{u"--idle-gap"_s, bad};
    }
    for (const QString &fraction : {u"1.5"_s, u"1e2"_s, u"99999999999"_s})
        runs << probe + QStringList{u"--count"_s, fraction}
             << diagnose + QStringList{u"--timeout-ms"_s, fraction};
    for (const QStringList &args : runs) {
        const auto run = runCli(args, dir.path(), 20s);
        EXPECT_EQ(run.exitCode, 2) << args.join(u' ').toStdString();
        EXPECT_TRUE(run.standardError.contains("bad -")) << run.standardError.toStdString();
    }
}

TEST(CliDiagnoseHelp, TheTimeoutRangeIsTheOneTheCodeTakes)
{
    const auto help = runCli({u"diagnose"_s, u"--help"_s});
    EXPECT_EQ(help.exitCode, 0);
    const QString text = QString::fromUtf8(help.standardOutput).simplified();
    EXPECT_TRUE(text.contains(u"1..600000"_s)) << text.toStdString();
    EXPECT_TRUE(text.contains(u"within 2-60 s"_s)) << text.toStdString();
    EXPECT_FALSE(text.contains(u"2000 to 60000"_s)) << text.toStdString();
    EXPECT_TRUE(text.startsWith(u"Usage: opsdeck-cli diagnose"_s)) << text.toStdString();
}

TEST(CliClusterPaths, AProxyOnlyClusterSaysItsPathOnceAndNoRouterNoProxyIsNoted)
{
    PdCluster cluster;
    ASSERT_TRUE(cluster.start()) << cluster.error.toStdString();
    test::SimProcess proxy;
    ASSERT_TRUE(proxy.start(test::simArgs(u"proxy"_s, {u"--upstream"_s, cluster.router.url()})));
    QTemporaryDir dir;
    const QString dataDir = dir.filePath(u"data"_s);
    const auto viaProxy = runCli(
        checkArgs(u"batch-check"_s,
                  test::writeInventory(dir, clusterYaml(cluster, false, proxy.url())), dataDir) +
            QStringList{u"-n"_s, u"2"_s},
        dir.path(), 120s);
    EXPECT_TRUE(viaProxy.standardOutput.contains("batch check pd, path via proxy (proxy): "))
        << viaProxy.standardOutput.toStdString();
    EXPECT_FALSE(viaProxy.standardOutput.contains("via via"))
        << viaProxy.standardOutput.toStdString();
    EXPECT_FALSE(viaProxy.standardError.contains("neither router nor proxy"));

    const QString direct = test::writeInventory(dir, clusterYaml(cluster, false));
    for (const QString &command : {u"batch-check"_s, u"verify"_s}) {
        const auto run =
            runCli(checkArgs(command, direct, dataDir) + QStringList{u"-n"_s, u"2"_s, u"--json"_s},
                   dir.path(), 120s);
        EXPECT_TRUE(run.standardError.contains(
            "has neither router nor proxy: the check goes directly to its first decode (decode)"))
            << command.toStdString() << ": " << run.standardError.toStdString();
        EXPECT_TRUE(run.json().isObject()) << run.standardOutput.toStdString();
    }
}
