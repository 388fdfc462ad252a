// Authentication failures name the methods tried and the server's allowed ones;
// the connection state passes through connecting and authenticating; a real
// ssh-agent is tried first and logs in without key files.
#include "logcapture.h"
#include "sshfixture.h"
#include "sshtransport.h"
#include "synchronousrun.h"

#include <QVector>
#include <gtest/gtest.h>

using namespace std::chrono_literals;
using opsdeck::remote::CommandRequest;
using opsdeck::remote::CommandResult;
using opsdeck::remote::runAndWait;
using opsdeck::remote::SshConnectionState;
using opsdeck::remote::SshTransport;
using opsdeck::test::LogCapture;
using opsdeck::test::SshdProcess;
using Phase = SshConnectionState::Phase;

namespace {

// Every state the transport reports, in order.
struct StateRecorder
{
    QVector<SshConnectionState> states;
    explicit StateRecorder(SshTransport &transport)
    {
        QObject::connect(&transport, &SshTransport::connectionStateChanged, &transport,
                         [this](const SshConnectionState &state) { states << state; });
    }
    QVector<Phase> phases() const
    {
        QVector<Phase> result;
        for (const SshConnectionState &state : states)
            result << state.phase;
        return result;
    }
};

std::string describe(const QVector<SshConnectionState> &states)
{
    QStringList lines;
    for (const SshConnectionState &state : states)
        lines << state.describe();
    return lines.join(QStringLiteral(" | ")).toStdString();
}

// A real `ssh-agent -D -a SOCKET` (Debian openssh-client) with SSH_AUTH_SOCK
// of this process pointing at it while it lives; the old value comes back after.
class AgentProcess
{
public:
    explicit AgentProcess(const QString &socket)
        : m_socket(socket), m_hadSocket(qEnvironmentVariableIsSet("SSH_AUTH_SOCK")),
          m_oldSocket(qgetenv("SSH_AUTH_SOCK"))
    {
    }
    ~AgentProcess()
    {
        if (m_process.state() != QProcess::NotRunning)
            opsdeck::test::stopProcess(m_process, 5s);
        if (m_hadSocket)
            qputenv("SSH_AUTH_SOCK", m_oldSocket);
        else
            qunsetenv("SSH_AUTH_SOCK");
    }
    AgentProcess(const AgentProcess &) = delete;
    AgentProcess &operator=(const AgentProcess &) = delete;

    bool start()
    {
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start(QStringLiteral("ssh-agent"),
                        {QStringLiteral("-D"), QStringLiteral("-a"), m_socket});
        if (!m_process.waitForStarted(5000))
            return false;
        if (!opsdeck::test::waitUntil([this] { return QFile::exists(m_socket); }, 10s))
            return false;
        qputenv("SSH_AUTH_SOCK", QFile::encodeName(m_socket));
        return true;
    }
    /// ssh-add with `arguments` against this agent; true when it exits 0.
    bool add(const QStringList &arguments)
    {
        QProcess add;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("SSH_AUTH_SOCK"), m_socket);
        add.setProcessEnvironment(environment);
        add.start(QStringLiteral("ssh-add"), arguments);
        return add.waitForFinished(20000) && add.exitStatus() == QProcess::NormalExit &&
               add.exitCode() == 0;
    }

private:
    QProcess m_process;
    QString m_socket;
    bool m_hadSocket;
    QByteArray m_oldSocket;
};

} // namespace

TEST(SshAuth, ConnectReportsConnectingThenAuthenticatingThenConnected)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    SshTransport transport(QStringLiteral("test-host"), opsdeck::test::sshSettings(sshd));
    StateRecorder recorder(transport);
    CommandRequest request;
    request.argv = {QStringLiteral("true")};
    ASSERT_TRUE(runAndWait(transport, request).succeeded())
        << transport.connectionState().reason.toStdString();
    ASSERT_TRUE(opsdeck::test::waitUntil(
        [&] {
            return !recorder.states.isEmpty() && recorder.states.last().phase == Phase::Connected;
        },
        5s))
        << describe(recorder.states);
    EXPECT_EQ(recorder.phases(),
              (QVector<Phase>{Phase::Connecting, Phase::Authenticating, Phase::Connected}))
        << describe(recorder.states);
    EXPECT_EQ(recorder.states.at(1).describe(), QStringLiteral("authenticating"));
}

TEST(SshAuth, WrongKeyReportsAuthenticatingThenFailedWithTheReason)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    const QString wrongKey = sshd.path(QStringLiteral("wrong_key"));
    ASSERT_TRUE(SshdProcess::generateKey(wrongKey));
    auto settings = opsdeck::test::sshSettings(sshd);
    settings.identityFiles = {wrongKey};
    SshTransport transport(QStringLiteral("test-host"), settings);
    StateRecorder recorder(transport);
    CommandRequest request;
    request.argv = {QStringLiteral("true")};
    EXPECT_EQ(runAndWait(transport, request).outcome, CommandResult::Outcome::FailedToStart);
    ASSERT_TRUE(opsdeck::test::waitUntil(
        [&] { return !recorder.states.isEmpty() && recorder.states.last().phase == Phase::Failed; },
        5s))
        << describe(recorder.states);
    EXPECT_EQ(recorder.phases(),
              (QVector<Phase>{Phase::Connecting, Phase::Authenticating, Phase::Failed}))
        << describe(recorder.states);
    const SshConnectionState failed = recorder.states.last();
    EXPECT_EQ(failed.failure, SshConnectionState::Failure::Auth);
    EXPECT_TRUE(failed.reason.contains(QStringLiteral("%1: refused by the server").arg(wrongKey)))
        << failed.reason.toStdString();
    EXPECT_TRUE(failed.describe().startsWith(QStringLiteral("failed: authentication failed for ")))
        << failed.describe().toStdString();
}

TEST(SshAuth, WrongKeyFailsNamingTheMethods)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    const QString wrongKey = sshd.path(QStringLiteral("wrong_key"));
    ASSERT_TRUE(SshdProcess::generateKey(wrongKey));
    auto settings = opsdeck::test::sshSettings(sshd);
    settings.identityFiles = {wrongKey, sshd.path(QStringLiteral("missing_key"))};
    SshTransport transport(QStringLiteral("test-host"), settings);
    CommandRequest request;
    request.argv = {QStringLiteral("true")};
    const CommandResult result = runAndWait(transport, request);
    EXPECT_EQ(result.outcome, CommandResult::Outcome::FailedToStart);
    const SshConnectionState state = transport.connectionState();
    EXPECT_EQ(state.failure, SshConnectionState::Failure::Auth);
    const std::string reason = state.reason.toStdString();
    EXPECT_TRUE(state.reason.contains(QStringLiteral("authentication failed for %1@%2")
                                          .arg(SshdProcess::userName(), sshd.hostEntry())))
        << reason;
    EXPECT_TRUE(state.reason.contains(QStringLiteral("tried none, publickey (%1)").arg(wrongKey)))
        << reason;
    EXPECT_TRUE(state.reason.contains(QStringLiteral("the server allows publickey"))) << reason;
    EXPECT_TRUE(state.reason.contains(QStringLiteral("%1: refused by the server").arg(wrongKey)))
        << reason;
    EXPECT_TRUE(state.reason.contains(QStringLiteral("missing_key: no such key file"))) << reason;
    EXPECT_EQ(result.errorText, state.reason);
}

TEST(SshAuth, PassphraseProtectedKeyIsSkippedWithANote)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    const QString locked = sshd.path(QStringLiteral("locked_key"));
    QProcess keygen;
    keygen.start(QStringLiteral("ssh-keygen"),
                 {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                  QStringLiteral("-N"), QStringLiteral("a passphrase"), QStringLiteral("-f"),
                  locked});
    ASSERT_TRUE(keygen.waitForFinished(20000) && keygen.exitCode() == 0);
    // The server accepts the key, so only the missing passphrase stops it.
    QFile authorized(sshd.path(QStringLiteral("authorized_keys")));
    ASSERT_TRUE(authorized.open(QIODevice::Append));
    authorized.write(opsdeck::test::readFile(locked + QStringLiteral(".pub")));
    authorized.close();
    auto settings = opsdeck::test::sshSettings(sshd);
    CommandRequest request;
    request.argv = {QStringLiteral("true")};

    settings.identityFiles = {locked};
    SshTransport lockedOnly(QStringLiteral("test-host"), settings);
    EXPECT_FALSE(runAndWait(lockedOnly, request).succeeded());
    EXPECT_TRUE(lockedOnly.connectionState().reason.contains(
        QStringLiteral("%1: passphrase-protected, skipped").arg(locked)))
        << lockedOnly.connectionState().reason.toStdString();

    // The locked key is skipped without a prompt; the next key gets in.
    settings.identityFiles = {locked, sshd.clientKey()};
    SshTransport transport(QStringLiteral("test-host"), settings);
    EXPECT_TRUE(runAndWait(transport, request).succeeded());
}

// The agent alone logs in: no identity files, and a client config without
// IdentityFile over an empty SSH directory, so no key file could. With the
// agent emptied, the same settings fail naming the agent and the key files.
TEST(SshAuth, SshAgentIsTriedFirstAndLogsInWithoutKeyFiles)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    const QString config = sshd.path(QStringLiteral("agent_config"));
    ASSERT_TRUE(opsdeck::test::writeFile(
        config, QStringLiteral("Host %1\n  HostName 127.0.0.1\n  Port %2\n  User %3\n"
                               "  UserKnownHostsFile %4\n")
                    .arg(SshdProcess::alias())
                    .arg(sshd.port())
                    .arg(SshdProcess::userName(), sshd.knownHosts())
                    .toUtf8()));
    AgentProcess agent(sshd.path(QStringLiteral("agent.sock")));
    ASSERT_TRUE(agent.start());
    ASSERT_TRUE(agent.add({sshd.clientKey()}));
    auto settings = opsdeck::test::sshSettings(sshd);
    settings.configFile = config;
    settings.identityFiles.clear();
    settings.useAgent = true;
    CommandRequest request;
    request.argv = {QStringLiteral("id"), QStringLiteral("-un")};
    request.deadline = 20s;

    {
        LogCapture log;
        SshTransport transport(QStringLiteral("test-host"), settings);
        const CommandResult result = runAndWait(transport, request);
        ASSERT_TRUE(result.succeeded()) << transport.connectionState().reason.toStdString();
        EXPECT_EQ(result.standardOutput, SshdProcess::userName().toUtf8() + '\n');
        EXPECT_NE(log.text().find("authenticated by publickey (ssh-agent)"), std::string::npos)
            << log.text();
    }

    ASSERT_TRUE(agent.add({QStringLiteral("-D")}));
    SshTransport transport(QStringLiteral("test-host"), settings);
    EXPECT_EQ(runAndWait(transport, request).outcome, CommandResult::Outcome::FailedToStart);
    const SshConnectionState state = transport.connectionState();
    EXPECT_EQ(state.failure, SshConnectionState::Failure::Auth);
    EXPECT_TRUE(state.reason.contains(
        QStringLiteral("tried none, publickey (ssh-agent), publickey (key files from the ssh "
                       "config and the SSH directory); the server allows publickey")))
        << state.reason.toStdString();
}
