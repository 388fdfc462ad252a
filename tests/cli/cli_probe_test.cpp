// `opsdeck-cli probe` against opsdeck-sim on loopback: the JSON keys of the
// contract, connection reuse across --count, TTFT of --stream, exit codes and
// SIGINT.
#include "clitest.h"
#include "simprocess.h"
#include "testsupport.h"

#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <csignal>
#include <gtest/gtest.h>

using namespace opsdeck::test;

namespace {

QList<QJsonObject> jsonLines(const CliRun &run)
{
    QList<QJsonObject> lines;
    for (const QByteArray &line : run.standardOutput.split('\n'))
        if (!line.trimmed().isEmpty())
            lines.append(QJsonDocument::fromJson(line).object());
    return lines;
}

const QStringList contractKeys = {QStringLiteral("connection_reused"),
                                  QStringLiteral("local_port"),
                                  QStringLiteral("connect_ms"),
                                  QStringLiteral("ttfb_ms"),
                                  QStringLiteral("total_ms"),
                                  QStringLiteral("ttft_ms"),
                                  QStringLiteral("status"),
                                  QStringLiteral("note")};

} // namespace

TEST(CliProbe, FreshJsonLinesCarryTheContractKeys)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(simArgs(QStringLiteral("engine"))));
    const CliRun run =
        runCli({QStringLiteral("probe"), sim.url() + QStringLiteral("/health"),
                QStringLiteral("--count"), QStringLiteral("3"), QStringLiteral("--json")});
    ASSERT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    const auto lines = jsonLines(run);
    ASSERT_EQ(lines.size(), 3) << run.standardOutput.toStdString();
    QSet<int> ports;
    for (const QJsonObject &o : lines) {
        for (const QString &key : contractKeys)
            EXPECT_TRUE(o.contains(key)) << key.toStdString();
        EXPECT_FALSE(o.value(QLatin1String("connection_reused")).toBool());
        EXPECT_TRUE(o.value(QLatin1String("ttft_ms")).isNull());
        EXPECT_EQ(o.value(QLatin1String("status")).toInt(), 200);
        EXPECT_GT(o.value(QLatin1String("connect_ms")).toDouble(), 0);
        EXPECT_GE(o.value(QLatin1String("total_ms")).toDouble(),
                  o.value(QLatin1String("ttfb_ms")).toDouble());
        EXPECT_TRUE(o.value(QLatin1String("note")).isString());
        ports.insert(o.value(QLatin1String("local_port")).toInt());
    }
    EXPECT_EQ(ports.size(), 3);
    EXPECT_FALSE(ports.contains(0));
}

TEST(CliProbe, ReusedKeepsOneLocalPortAcrossTheCount)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(simArgs(QStringLiteral("engine"))));
    const CliRun run =
        runCli({QStringLiteral("probe"), sim.url() + QStringLiteral("/health"),
                QStringLiteral("--reused"), QStringLiteral("--count"), QStringLiteral("3"),
                QStringLiteral("--idle-gap"), QStringLiteral("0.2"), QStringLiteral("--json")});
    ASSERT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    const auto lines = jsonLines(run);
    ASSERT_EQ(lines.size(), 3) << run.standardOutput.toStdString();
    const int port = lines[0].value(QLatin1String("local_port")).toInt();
    EXPECT_GT(port, 0);
    EXPECT_FALSE(lines[0].value(QLatin1String("connection_reused")).toBool()); // warm-up
    for (int i = 1; i < 3; ++i) {
        EXPECT_EQ(lines[i].value(QLatin1String("local_port")).toInt(), port);
        EXPECT_TRUE(lines[i].value(QLatin1String("connection_reused")).toBool());
        EXPECT_EQ(lines[i].value(QLatin1String("connect_ms")).toDouble(), 0.0);
        EXPECT_EQ(lines[i].value(QLatin1String("mode")).toString(), QStringLiteral("reused"));
    }
}

TEST(CliProbe, StreamReportsTtftOfTheFirstTokenWithTheModelFromTheServer)
{
    SimProcess sim;
    ASSERT_TRUE(
        sim.start(simArgs(QStringLiteral("engine"),
                          {QStringLiteral("--served-model-name"), QStringLiteral("probe-m"),
                           QStringLiteral("--stream-empty-first-chunk"),
                           QStringLiteral("--first-token-delay-ms"), QStringLiteral("300")})));
    const CliRun run =
        runCli({QStringLiteral("probe"), sim.url() + QStringLiteral("/v1/chat/completions"),
                QStringLiteral("--stream"), QStringLiteral("--json")});
    ASSERT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    const auto lines = jsonLines(run);
    ASSERT_EQ(lines.size(), 1);
    const double ttfb = lines[0].value(QLatin1String("ttfb_ms")).toDouble();
    const double ttft = lines[0].value(QLatin1String("ttft_ms")).toDouble(-1);
    EXPECT_GE(ttft, ttfb + 290);
    EXPECT_LE(ttft, lines[0].value(QLatin1String("total_ms")).toDouble());
    EXPECT_EQ(lines[0].value(QLatin1String("kind")).toString(), QStringLiteral("chat-stream"));
}

// `probe http://HOST:PORT --stream` means the OpenAI chat path, not "/".
TEST(CliProbe, ABareOriginWithStreamProbesTheChatPath)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(simArgs(QStringLiteral("engine"))));
    const CliRun run = runCli(
        {QStringLiteral("probe"), sim.url(), QStringLiteral("--stream"), QStringLiteral("--json")});
    ASSERT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    const auto lines = jsonLines(run);
    ASSERT_EQ(lines.size(), 1);
    EXPECT_EQ(lines[0].value(QLatin1String("status")).toInt(), 200);
    EXPECT_GT(lines[0].value(QLatin1String("ttft_ms")).toDouble(-1), 0);
}

TEST(CliProbe, ABareOriginWithoutChatProbesTheHealthPathAndSaysSo)
{
    SimProcess engine;
    ASSERT_TRUE(engine.start(simArgs(QStringLiteral("engine"))));
    SimProcess proxy;
    ASSERT_TRUE(proxy.start(
        simArgs(QStringLiteral("proxy"), {QStringLiteral("--upstream"), engine.url()})));
    for (const QString &origin : QStringList{proxy.url(), proxy.url() + QStringLiteral("/")}) {
        const CliRun run = runCli({QStringLiteral("probe"), origin, QStringLiteral("--json")});
        ASSERT_EQ(run.exitCode, 0) << run.standardOutput.toStdString();
        const auto lines = jsonLines(run);
        ASSERT_EQ(lines.size(), 1);
        EXPECT_EQ(lines[0].value(QLatin1String("status")).toInt(), 200);
        EXPECT_TRUE(lines[0]
                        .value(QLatin1String("note"))
                        .toString()
                        .contains(QStringLiteral("probed /health")))
            << run.standardOutput.toStdString();
    }
}

TEST(CliProbe, ATimedOutRowStillSaysWhatWasProbed)
{
    SimProcess engine;
    ASSERT_TRUE(engine.start(simArgs(QStringLiteral("engine"))));
    SimProcess proxy;
    ASSERT_TRUE(proxy.start(simArgs(
        QStringLiteral("proxy"), {QStringLiteral("--upstream"), engine.url(),
                                  QStringLiteral("--fault"), QStringLiteral("reused-stall=3")})));
    const CliRun run =
        runCli({QStringLiteral("probe"), proxy.url(), QStringLiteral("--reused"),
                QStringLiteral("--count"), QStringLiteral("2"), QStringLiteral("--idle-gap"),
                QStringLiteral("0"), QStringLiteral("--timeout-ms"), QStringLiteral("500")});
    EXPECT_EQ(run.exitCode, 3) << run.standardOutput.toStdString();
    const QStringList rows = QString::fromUtf8(run.standardOutput).split(u'\n', Qt::SkipEmptyParts);
    ASSERT_EQ(rows.size(), 3) << run.standardOutput.toStdString();
    EXPECT_TRUE(rows[2].contains(QStringLiteral("probed /health")) &&
                rows[2].contains(QStringLiteral("> 0.5 s (timed out)")))
        << rows[2].toStdString();
}

TEST(CliProbe, ExitCodesForBadInputFailureAndTimeout)
{
    for (const QStringList &bad :
         {QStringList{QStringLiteral("probe")},
          QStringList{QStringLiteral("probe"), QStringLiteral("ftp://127.0.0.1/")},
          QStringList{QStringLiteral("probe"), QStringLiteral("http://127.0.0.1:1/"),
                      QStringLiteral("--count"), QStringLiteral("0")},
          QStringList{QStringLiteral("probe"), QStringLiteral("http://127.0.0.1:1/"),
                      QStringLiteral("--count"), QStringLiteral("10001")},
          QStringList{QStringLiteral("probe"), QStringLiteral("http://127.0.0.1:1/"),
                      QStringLiteral("--fresh"), QStringLiteral("--reused")}})
        EXPECT_EQ(runCli(bad).exitCode, 2) << bad.join(u' ').toStdString();

    SimProcess keyed;
    ASSERT_TRUE(keyed.start(
        simArgs(QStringLiteral("engine"), {QStringLiteral("--api-key"), QStringLiteral("k-123")})));
    const CliRun refused =
        runCli({QStringLiteral("probe"), keyed.url() + QStringLiteral("/v1/models")});
    EXPECT_EQ(refused.exitCode, 1);
    EXPECT_TRUE(refused.standardOutput.contains("HTTP 401"))
        << refused.standardOutput.toStdString();

    SimProcess engine;
    ASSERT_TRUE(engine.start(simArgs(QStringLiteral("engine"))));
    SimProcess proxy;
    ASSERT_TRUE(proxy.start(simArgs(
        QStringLiteral("proxy"), {QStringLiteral("--upstream"), engine.url(),
                                  QStringLiteral("--fault"), QStringLiteral("reused-stall=10")})));
    const QStringList stalled = {
        QStringLiteral("probe"),    proxy.url() + QStringLiteral("/v1/models"),
        QStringLiteral("--reused"), QStringLiteral("--count"),
        QStringLiteral("2"),        QStringLiteral("--idle-gap"),
        QStringLiteral("0"),        QStringLiteral("--timeout-ms"),
        QStringLiteral("500"),      QStringLiteral("--json")};
    const CliRun timedOut = runCli(stalled);
    EXPECT_EQ(timedOut.exitCode, 3) << timedOut.standardOutput.toStdString();
    const auto lines = jsonLines(timedOut);
    ASSERT_EQ(lines.size(), 2);
    EXPECT_EQ(lines[0].value(QLatin1String("status")).toInt(), 200);
    EXPECT_TRUE(lines[1].value(QLatin1String("timed_out")).toBool());
    EXPECT_EQ(lines[1].value(QLatin1String("status")).toInt(), 0);

    // For people, the timed-out probe reads as a lower bound, never a measured 500 ms.
    const CliRun text = runCli(stalled.mid(0, stalled.size() - 1));
    const QList<QByteArray> rows = text.standardOutput.trimmed().split('\n');
    ASSERT_EQ(rows.size(), 3) << text.standardOutput.toStdString();
    EXPECT_TRUE(rows[2].contains("> 0.5 s (timed out)")) << rows[2].toStdString();
    EXPECT_TRUE(rows[2].contains(" >50")) << rows[2].toStdString();
    EXPECT_FALSE(rows[1].contains("timed out"));
}

TEST(CliProbe, SigintCancelsTheProbeInFlight)
{
    SimProcess engine;
    ASSERT_TRUE(engine.start(simArgs(QStringLiteral("engine"))));
    SimProcess proxy;
    ASSERT_TRUE(proxy.start(simArgs(
        QStringLiteral("proxy"), {QStringLiteral("--upstream"), engine.url(),
                                  QStringLiteral("--fault"), QStringLiteral("reused-stall=60")})));
    QProcess cli;
    cli.start(binPath(QStringLiteral("opsdeck-cli")),
              {QStringLiteral("probe"), proxy.url() + QStringLiteral("/v1/models"),
               QStringLiteral("--reused"), QStringLiteral("--count"), QStringLiteral("2"),
               QStringLiteral("--idle-gap"), QStringLiteral("0"), QStringLiteral("--timeout-ms"),
               QStringLiteral("60000"), QStringLiteral("--json")});
    ASSERT_TRUE(cli.waitForStarted());
    // The warm-up line is out: the second probe now hangs in the proxy.
    QByteArray out;
    ASSERT_TRUE(waitUntil(
        [&] {
            out += cli.readAllStandardOutput();
            return out.contains('\n');
        },
        std::chrono::seconds(10)));
    ::kill(static_cast<pid_t>(cli.processId()), SIGINT);
    ASSERT_TRUE(cli.waitForFinished(5000));
    out += cli.readAllStandardOutput();
    EXPECT_EQ(cli.exitStatus(), QProcess::NormalExit);
    EXPECT_EQ(cli.exitCode(), 3);
    EXPECT_TRUE(out.contains("cancelled")) << out.toStdString();
}

TEST(CliProbe, PortZeroSocksProxiesAndCredentialsAreBadInputWithoutEchoingThePassword)
{
    const QString dead = QStringLiteral("http://127.0.0.1:%1/health").arg(freeTcpPort());
    for (const QStringList &bad :
         {QStringList{QStringLiteral("probe"), QStringLiteral("http://127.0.0.1:0/health")},
          QStringList{QStringLiteral("probe"), dead, QStringLiteral("--proxy"),
                      QStringLiteral("socks5://u:s3cretpw@127.0.0.1:1080")},
          QStringList{QStringLiteral("probe"), dead, QStringLiteral("--proxy"),
                      QStringLiteral("http://u:s3cretpw@[bad/")},
          QStringList{QStringLiteral("probe"),
                      QStringLiteral("http://u:s3cretpw@127.0.0.1:99999/")},
          QStringList{QStringLiteral("probe"), QStringLiteral("http://u:s3cretpw@127.0.0.1:0/")}}) {
        const CliRun run = runCli(bad);
        EXPECT_EQ(run.exitCode, 2) << bad.join(u' ').toStdString();
        EXPECT_TRUE(run.standardError.startsWith("opsdeck-cli: "))
            << run.standardError.toStdString();
        EXPECT_FALSE(run.standardError.contains("s3cretpw")) << run.standardError.toStdString();
        EXPECT_FALSE(run.standardOutput.contains("s3cretpw"));
    }
    const CliRun cacert = runCli({QStringLiteral("probe"), dead, QStringLiteral("--cacert"),
                                  QStringLiteral("/nonexistent/ca.pem")});
    EXPECT_EQ(cacert.exitCode, 2);
    EXPECT_TRUE(cacert.standardError.contains("/nonexistent/ca.pem"));

    const CliRun help = runCli({QStringLiteral("probe"), QStringLiteral("--help")});
    EXPECT_EQ(help.exitCode, 0);
    EXPECT_TRUE(help.standardOutput.startsWith("Usage: opsdeck-cli probe "))
        << help.standardOutput.toStdString();
}
