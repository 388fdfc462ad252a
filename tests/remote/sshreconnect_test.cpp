// The session's life: a session killed between commands is seen while idle
// and reconnected, and the next command runs; with sshd gone the state says
// failed with the reason and when the next attempt comes (backing off), and
// commands fail at once with that reason instead of hanging.
#include "sshfixture.h"
#include "sshtransport.h"
#include "synchronousrun.h"

#include <csignal>
#include <gtest/gtest.h>

using namespace std::chrono_literals;
using opsdeck::remote::CommandRequest;
using opsdeck::remote::CommandResult;
using opsdeck::remote::runAndWait;
using opsdeck::remote::SshConnectionState;
using opsdeck::remote::SshTransport;
using opsdeck::test::SshdProcess;
using Phase = SshConnectionState::Phase;

namespace {

CommandResult runScript(SshTransport &transport, const QString &script)
{
    CommandRequest request;
    request.script = script;
    request.deadline = 20s;
    return runAndWait(transport, request);
}

void killConnections(const SshdProcess &sshd)
{
    for (qint64 connection : sshd.connectionPids()) {
        for (qint64 child : SshdProcess::childPids(connection))
            ::kill(static_cast<pid_t>(child), SIGKILL);
        ::kill(static_cast<pid_t>(connection), SIGKILL);
    }
}

} // namespace

TEST(SshReconnect, SessionKilledBetweenCommandsIsSeenAndReconnected)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    SshTransport transport(QStringLiteral("test-host"), opsdeck::test::sshSettings(sshd));
    QVector<SshConnectionState> states;
    QObject::connect(&transport, &SshTransport::connectionStateChanged, &transport,
                     [&](const SshConnectionState &s) { states << s; });
    ASSERT_TRUE(runScript(transport, QStringLiteral("true")).succeeded());
    ASSERT_EQ(sshd.connectionPids().size(), 1);
    const qint64 first = sshd.connectionPids().first();
    states.clear();

    killConnections(sshd);
    // Idle, no command: the queue reads the session, sees it gone and reconnects.
    ASSERT_TRUE(opsdeck::test::waitUntil(
        [&] {
            return std::any_of(states.begin(), states.end(),
                               [](const SshConnectionState &s) {
                                   return s.phase == Phase::Disconnected &&
                                          s.reason.contains(QStringLiteral("lost"));
                               }) &&
                   !states.isEmpty() && states.last().phase == Phase::Connected;
        },
        15s))
        << "states seen: " << states.size();
    EXPECT_EQ(transport.connectionState().phase, Phase::Connected);

    const CommandResult next = runScript(transport, QStringLiteral("echo again"));
    ASSERT_TRUE(next.succeeded()) << next.describe().toStdString() << next.errorText.toStdString();
    EXPECT_EQ(next.standardOutput, "again\n");
    ASSERT_EQ(sshd.connectionPids().size(), 1);
    EXPECT_NE(sshd.connectionPids().first(), first) << "a new connection";
}

TEST(SshReconnect, KilledJustBeforeACommandTheCommandStillRuns)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    auto settings = opsdeck::test::sshSettings(sshd);
    SshTransport transport(QStringLiteral("test-host"), settings);
    ASSERT_TRUE(runScript(transport, QStringLiteral("true")).succeeded());
    killConnections(sshd);
    // At once, before the idle check can notice: the command finds the
    // session dead when it opens its channel, reconnects and runs.
    const CommandResult next = runScript(transport, QStringLiteral("echo again"));
    ASSERT_TRUE(next.succeeded()) << next.describe().toStdString() << next.errorText.toStdString();
    EXPECT_EQ(next.standardOutput, "again\n");
}

TEST(SshReconnect, StoppedServerBacksOffAndCommandsFailAtOnceWithTheReason)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    auto settings = opsdeck::test::sshSettings(sshd);
    settings.reconnectInitialDelay = 200ms;
    settings.reconnectMaxDelay = 800ms;
    SshTransport transport(QStringLiteral("test-host"), settings);
    QVector<SshConnectionState> states;
    QObject::connect(&transport, &SshTransport::connectionStateChanged, &transport,
                     [&](const SshConnectionState &s) { states << s; });
    ASSERT_TRUE(runScript(transport, QStringLiteral("true")).succeeded());
    sshd.stop();

    // Failed attempts, each planning the next one further away: 200, 400, 800, 800 ms.
    const auto delays = [&] {
        QVector<qint64> seen;
        for (const SshConnectionState &s : std::as_const(states))
            if (s.phase == Phase::Failed)
                seen << s.reconnectInMs;
        return seen;
    };
    ASSERT_TRUE(opsdeck::test::waitUntil([&] { return delays().size() >= 4; }, 20s))
        << "failed attempts seen: " << delays().size();
    EXPECT_EQ(delays().mid(0, 4), (QVector<qint64>{200, 400, 800, 800}));
    const SshConnectionState failed = transport.connectionState();
    EXPECT_EQ(failed.failure, SshConnectionState::Failure::Connect);
    EXPECT_TRUE(failed.reason.contains(QStringLiteral("cannot connect")))
        << failed.reason.toStdString();
    EXPECT_TRUE(failed.describe().startsWith(QStringLiteral("reconnecting in ")))
        << failed.describe().toStdString();

    // A command now fails (never hangs) and says why.
    std::optional<CommandResult> result;
    QObject::connect(&transport, &SshTransport::commandFinished, &transport,
                     [&](quint64, const CommandResult &r) { result = r; });
    CommandRequest request;
    request.script = QStringLiteral("true");
    transport.run(request);
    ASSERT_TRUE(opsdeck::test::waitUntil([&] { return result.has_value(); }, 5s));
    EXPECT_EQ(result->outcome, CommandResult::Outcome::FailedToStart);
    EXPECT_FALSE(result->succeeded());
    EXPECT_TRUE(result->errorText.contains(QStringLiteral("cannot connect")))
        << result->errorText.toStdString();
}

TEST(SshReconnect, ConnectionStateDescribesItself)
{
    SshConnectionState state;
    state.phase = Phase::Failed;
    state.reason = QStringLiteral("cannot connect to [127.0.0.1]:1: Connection refused");
    EXPECT_EQ(state.describe(),
              QStringLiteral("failed: cannot connect to [127.0.0.1]:1: Connection refused"));
    state.reconnectInMs = 1500;
    EXPECT_EQ(state.describe(), QStringLiteral("reconnecting in 2 s: cannot connect to "
                                               "[127.0.0.1]:1: Connection refused"));
    state = {};
    state.phase = Phase::Connected;
    EXPECT_EQ(state.describe(), QStringLiteral("connected"));
}

TEST(SshReconnect, IdleSessionSendsKeepAlives)
{
    SshdProcess sshd;
    // Per connection, after login: sshd logs each SSH2_MSG_IGNORE at DEBUG3.
    ASSERT_TRUE(sshd.start(QStringLiteral("Match all\n  LogLevel DEBUG3")))
        << sshd.errorText().toStdString();
    auto settings = opsdeck::test::sshSettings(sshd);
    settings.keepAliveInterval = 300ms;
    SshTransport transport(QStringLiteral("test-host"), settings);
    ASSERT_TRUE(runScript(transport, QStringLiteral("true")).succeeded());
    const auto ignores = [&] {
        return sshd.errorText().count(QStringLiteral("Received SSH2_MSG_IGNORE"));
    };
    EXPECT_TRUE(opsdeck::test::waitUntil([&] { return ignores() >= 2; }, 10s))
        << "keep-alives seen by sshd: " << ignores();
    EXPECT_EQ(transport.connectionState().phase, Phase::Connected);
}
