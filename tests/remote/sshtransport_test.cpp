// SshTransport beyond the shared semantics: bounded memory on huge output,
// UNKNOWN results (case B15), one session for many commands, the job queue's
// order, the OpenSSH client config.
#include "sshfixture.h"
#include "sshtransport.h"
#include "synchronousrun.h"

#include <QCoreApplication>
#include <QTemporaryDir>
#include <arpa/inet.h>
#include <cstdio>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace std::chrono_literals;
using opsdeck::remote::CommandRequest;
using opsdeck::remote::CommandResult;
using opsdeck::remote::runAndWait;
using opsdeck::remote::SshConnectionState;
using opsdeck::remote::SshTransport;
using opsdeck::test::SshdProcess;
using opsdeck::test::sshSettings;

namespace {

// kB from a /proc/self/status line such as "VmHWM:   123456 kB".
qint64 statusKb(const char *field)
{
    const QList<QByteArray> lines =
        opsdeck::test::readFile(QStringLiteral("/proc/self/status")).split('\n');
    for (const QByteArray &line : lines)
        if (line.startsWith(field))
            return line.mid(static_cast<qsizetype>(qstrlen(field)) + 1)
                .trimmed()
                .split(' ')
                .value(0)
                .toLongLong();
    return -1;
}

CommandResult runScript(SshTransport &transport, const QString &script,
                        std::chrono::milliseconds deadline = 30s)
{
    CommandRequest request;
    request.script = script;
    request.deadline = deadline;
    return runAndWait(transport, request);
}

} // namespace

TEST(SshTransport, FiftyMegabytesAreCappedWithoutMemoryGrowth)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    SshTransport transport(QStringLiteral("test-host"), sshSettings(sshd));
    const qint64 rssBeforeKb = statusKb("VmRSS:");
    CommandRequest request;
    request.script = QStringLiteral("head -c 52428800 /dev/zero");
    request.deadline = 120s;
    const CommandResult result = runAndWait(transport, request);
    ASSERT_TRUE(result.succeeded()) << result.describe().toStdString();
    EXPECT_EQ(result.standardOutput.size(), request.outputCap);
    EXPECT_EQ(result.standardOutputDropped, 52428800 - request.outputCap);
    // The peak over the run: the 8 MiB kept plus libssh's buffers, never the 50 MB.
    const qint64 peakGrowthKb = statusKb("VmHWM:") - rssBeforeKb;
    std::printf("50 MB through SSH: peak RSS growth %lld kB, %lld ms\n",
                static_cast<long long>(peakGrowthKb), static_cast<long long>(result.elapsedMs));
    EXPECT_LT(peakGrowthKb, (request.outputCap + 64 * 1024 * 1024) / 1024)
        << "peak RSS grew by " << peakGrowthKb << " kB";
}

TEST(SshTransport, ChannelClosedWithoutStatusIsUnknown)
{
    // Case B15 C: sshd closes an idle command channel after 1 s and sends
    // neither exit-status nor exit-signal; the command would exit 7 later.
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start(QStringLiteral("ChannelTimeout session:command=1s")))
        << sshd.errorText().toStdString();
    SshTransport transport(QStringLiteral("test-host"), sshSettings(sshd));
    const CommandResult result = runScript(transport, QStringLiteral("sleep 4; exit 7"), 20s);
    EXPECT_EQ(result.outcome, CommandResult::Outcome::Unknown) << result.describe().toStdString();
    EXPECT_FALSE(result.succeeded());
    EXPECT_EQ(result.exitCode, -1);
    EXPECT_TRUE(result.errorText.contains(QStringLiteral("no exit status")))
        << result.errorText.toStdString();
    EXPECT_LT(result.elapsedMs, 4000) << "the result must come at the close, not the exit";
}

TEST(SshTransport, ConnectionLostMidCommandIsUnknownAndTheNextCommandReconnects)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    SshTransport transport(QStringLiteral("test-host"), sshSettings(sshd));
    ASSERT_TRUE(runScript(transport, QStringLiteral("true")).succeeded());

    const QString marker =
        QStringLiteral("/tmp/opsdeck-lost-%1").arg(QCoreApplication::applicationPid());
    QFile::remove(marker);
    CommandRequest request;
    request.script = QStringLiteral("touch '%1'; sleep 30").arg(marker);
    std::optional<CommandResult> result;
    QObject::connect(&transport, &SshTransport::commandFinished, &transport,
                     [&](quint64, const CommandResult &r) { result = r; });
    transport.run(request);
    ASSERT_TRUE(opsdeck::test::waitUntil([&] { return QFile::exists(marker); }, 10s));
    QFile::remove(marker);
    // Kill the sshd process serving this connection, then what it started:
    // the TCP connection drops. The sshd goes first, else it may still report
    // its shell's SIGKILL as the command's exit before it dies itself.
    const QVector<qint64> connections = sshd.connectionPids();
    ASSERT_EQ(connections.size(), 1);
    const QVector<qint64> children = SshdProcess::childPids(connections.first());
    ::kill(static_cast<pid_t>(connections.first()), SIGKILL);
    for (qint64 child : children)
        ::kill(static_cast<pid_t>(child), SIGKILL);
    ASSERT_TRUE(opsdeck::test::waitUntil([&] { return result.has_value(); }, 15s));
    EXPECT_EQ(result->outcome, CommandResult::Outcome::Unknown) << result->describe().toStdString();
    EXPECT_FALSE(result->succeeded());
    EXPECT_TRUE(result->errorText.contains(QStringLiteral("lost")))
        << result->errorText.toStdString();

    const CommandResult next = runScript(transport, QStringLiteral("echo again"));
    EXPECT_TRUE(next.succeeded()) << next.describe().toStdString() << next.errorText.toStdString();
    EXPECT_EQ(next.standardOutput, "again\n");
}

TEST(SshTransport, OneSessionServesManyCommandsInOrder)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    SshTransport transport(QStringLiteral("test-host"), sshSettings(sshd));
    QVector<QByteArray> outputs;
    QObject::connect(&transport, &SshTransport::commandFinished, &transport,
                     [&](quint64, const CommandResult &r) { outputs << r.standardOutput; });
    // Queued at once; the first is the slowest, so only the queue keeps the order.
    for (int i = 0; i < 5; ++i) {
        CommandRequest request;
        request.script = QStringLiteral("sleep 0.%1; echo %2").arg(5 - i).arg(i);
        transport.run(request);
    }
    EXPECT_EQ(transport.runningCount(), 5);
    ASSERT_TRUE(opsdeck::test::waitUntil([&] { return outputs.size() == 5; }, 30s));
    for (int i = 0; i < 5; ++i)
        EXPECT_EQ(outputs.at(i), QByteArray::number(i) + '\n');
    EXPECT_EQ(transport.runningCount(), 0);
    // All of it over one connection.
    EXPECT_EQ(sshd.connectionPids().size(), 1);
    EXPECT_EQ(transport.connectionState().phase, SshConnectionState::Phase::Connected);
}

TEST(SshTransport, ClientConfigAliasGivesAddressPortUserAndKey)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    auto settings = sshSettings(sshd);
    settings.identityFiles.clear(); // the key now comes from the config's IdentityFile
    SshTransport transport(QStringLiteral("test-host"), settings);
    const CommandResult result = runScript(transport, QStringLiteral("echo \"$USER\""));
    ASSERT_TRUE(result.succeeded()) << result.errorText.toStdString();
    EXPECT_EQ(result.standardOutput, SshdProcess::userName().toUtf8() + '\n');
}

// ProxyJump and ProxyCommand: sshjump_test.cpp.

// A peer that sends an SSH banner and then garbage (a proxy, a port reused by
// another service): the connect fails with a reason, not an empty one.
TEST(SshTransport, APeerThatIsNotAnSshServerFailsWithAReason)
{
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(listener, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr *>(&address), length), 0);
    ASSERT_EQ(::listen(listener, 4), 0);
    ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr *>(&address), &length), 0);
    std::thread peer([listener] {
        // Bounded: one connection, waited for at most 10 s.
        pollfd ready{listener, POLLIN, 0};
        if (::poll(&ready, 1, 10000) <= 0)
            return;
        const int connection = ::accept(listener, nullptr, nullptr);
        static const char reply[] = "SSH-2.0-OpenSSH_9.2\r\ngarbage, not an SSH packet\r\n";
        ::send(connection, reply, sizeof reply - 1, MSG_NOSIGNAL);
        // Held open until the client gives up (at most 10 s).
        char sink[4096];
        pollfd readable{connection, POLLIN, 0};
        while (::poll(&readable, 1, 10000) > 0 && ::read(connection, sink, sizeof sink) > 0) {
        }
        ::close(connection);
    });

    QTemporaryDir dir;
    opsdeck::remote::SshSettings settings;
    settings.host = QStringLiteral("127.0.0.1");
    settings.port = ntohs(address.sin_port);
    settings.configFile = dir.filePath(QStringLiteral("config"));
    settings.knownHostsFile = dir.filePath(QStringLiteral("known_hosts"));
    ASSERT_TRUE(opsdeck::test::writeFile(settings.configFile, {}));
    ASSERT_TRUE(opsdeck::test::writeFile(settings.knownHostsFile, {}));
    settings.useAgent = false;
    settings.connectTimeout = 5s;
    SshTransport transport(QStringLiteral("not-ssh"), settings);
    CommandRequest request;
    request.argv = {QStringLiteral("true")};
    request.deadline = 10s;
    const CommandResult result = runAndWait(transport, request);
    peer.join();
    ::close(listener);
    EXPECT_EQ(result.outcome, CommandResult::Outcome::FailedToStart);
    const QString reason = result.errorText.trimmed();
    std::printf("%s\n", qPrintable(reason));
    EXPECT_TRUE(reason.contains(QStringLiteral("cannot connect"))) << reason.toStdString();
    EXPECT_FALSE(reason.endsWith(u':')) << reason.toStdString();
}
