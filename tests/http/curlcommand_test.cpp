// "Copy as curl": the command never carries the API key, and running it with
// the system's curl reproduces the probe (and its connection reuse).
#include "curlcommand.h"
#include "probetestsupport.h"
#include "simprocess.h"
#include "testsupport.h"

#include <QProcess>
#include <QRegularExpression>
#include <gtest/gtest.h>

using namespace opsdeck::probes;
using namespace opsdeck::test;

namespace {

struct Shell
{
    int exitCode = -1;
    QStringList lines;
    QByteArray error;
};

/// Runs `command` with bash -c, OPSDECK_API_KEY=`key` and a dead http_proxy
/// in the environment (the command must not use it).
Shell runShell(const QString &command, const QByteArray &key)
{
    QProcess bash;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("OPSDECK_API_KEY"), QString::fromLatin1(key));
    env.insert(QStringLiteral("http_proxy"),
               QStringLiteral("http://127.0.0.1:%1").arg(freeTcpPort()));
    bash.setProcessEnvironment(env);
    bash.start(QStringLiteral("/bin/bash"), {QStringLiteral("-c"), command});
    Shell out;
    if (!bash.waitForFinished(30'000)) {
        stopProcess(bash, std::chrono::seconds(2));
        return out;
    }
    out.exitCode = bash.exitCode();
    out.lines = QString::fromUtf8(bash.readAllStandardOutput()).split(u'\n', Qt::SkipEmptyParts);
    out.error = bash.readAllStandardError();
    return out;
}

QString field(const QString &line, const QString &name)
{
    const auto match = QRegularExpression(name + QStringLiteral("=(\\S+)")).match(line);
    return match.hasMatch() ? match.captured(1) : QString();
}

} // namespace

TEST(CurlCommand, QuotesEverythingAndNeverContainsTheKey)
{
    ProbeRequest request =
        chatProbe(QStringLiteral("http://127.0.0.1:1"), ProbeKind::Chat, ConnectionMode::Fresh);
    request.body = R"({"messages":[{"role":"user","content":"it's $HOME `x`"}]})";
    request.apiKey = "sk-never-print-me-0042";
    request.caFile = QStringLiteral("/etc/ssl/my ca.pem");
    request.proxy = QUrl(QStringLiteral("http://127.0.0.1:3128"));
    const QString command = curlCommandFor(request);
    EXPECT_FALSE(command.contains(QStringLiteral("sk-never-print-me-0042")));
    EXPECT_TRUE(command.contains(QStringLiteral("\"Authorization: Bearer $OPSDECK_API_KEY\"")));
    EXPECT_TRUE(command.contains(QStringLiteral(
        "'{\"messages\":[{\"role\":\"user\",\"content\":\"it'\\''s $HOME `x`\"}]}'")))
        << command.toStdString();
    EXPECT_TRUE(command.contains(QStringLiteral("--cacert '/etc/ssl/my ca.pem'")));
    EXPECT_TRUE(command.contains(QStringLiteral("--proxy 'http://127.0.0.1:3128'")));
    EXPECT_FALSE(command.contains(QStringLiteral("--noproxy")));
    EXPECT_TRUE(command.contains(QStringLiteral("time_starttransfer=%{time_starttransfer}")));
}

TEST(CurlCommand, RunningItWithCurlReproducesTheProbe)
{
    SimProcess sim;
    const QByteArray key = "sk-curl-command-test-77";
    ASSERT_TRUE(sim.start(simArgs(QStringLiteral("engine"),
                                  {QStringLiteral("--api-key"), QString::fromLatin1(key)})));
    ProbeRequest chat = chatProbe(sim.url(), ProbeKind::Chat, ConnectionMode::Fresh);
    chat.apiKey = key;
    const Shell fresh = runShell(curlCommandFor(chat), key);
    ASSERT_EQ(fresh.exitCode, 0) << fresh.error.toStdString();
    ASSERT_EQ(fresh.lines.size(), 1) << fresh.lines.join(u'|').toStdString();
    EXPECT_EQ(field(fresh.lines[0], QStringLiteral("http_code")), QStringLiteral("200"))
        << fresh.lines[0].toStdString();
    EXPECT_EQ(field(fresh.lines[0], QStringLiteral("num_connects")), QStringLiteral("1"));
    // Without the key in the environment the same command is refused: the
    // header really comes from $OPSDECK_API_KEY.
    const Shell noKey = runShell(curlCommandFor(chat), QByteArray("wrong"));
    ASSERT_EQ(noKey.lines.size(), 1);
    EXPECT_EQ(field(noKey.lines[0], QStringLiteral("http_code")), QStringLiteral("401"));

    ProbeRequest reused = getProbe(sim.url(), QStringLiteral("/v1/models"), ConnectionMode::Reused);
    reused.apiKey = key;
    const Shell twice = runShell(curlCommandFor(reused), key);
    ASSERT_EQ(twice.exitCode, 0) << twice.error.toStdString();
    ASSERT_EQ(twice.lines.size(), 2) << twice.lines.join(u'|').toStdString();
    EXPECT_EQ(field(twice.lines[1], QStringLiteral("http_code")), QStringLiteral("200"));
    EXPECT_EQ(field(twice.lines[1], QStringLiteral("num_connects")), QStringLiteral("0"));
    EXPECT_EQ(field(twice.lines[0], QStringLiteral("local_port")),
              field(twice.lines[1], QStringLiteral("local_port")));
}
