// ProxyJump done inside OpsDeck: a host behind a jump host (two sshd on
// loopback, each with its own host key), the jump host's forward refused,
// the host keys of both checked, a ProxyCommand still refused.
#include "auditlog.h"
#include "sshfixture.h"
#include "sshjump.h"
#include "sshtransport.h"
#include "synchronousrun.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <cstdio>
#include <gtest/gtest.h>

using namespace std::chrono_literals;
using opsdeck::remote::CommandRequest;
using opsdeck::remote::CommandResult;
using opsdeck::remote::runAndWait;
using opsdeck::remote::SshConnectionState;
using opsdeck::remote::SshJump;
using opsdeck::remote::SshSettings;
using opsdeck::remote::SshTransport;
using opsdeck::test::SshdProcess;

namespace {

// A client side for `behind` (the target sshd) reached with ProxyJump `jump`
// (the jump sshd): one ssh_config, one known_hosts, one key both accept.
struct JumpSetup
{
    SshdProcess jump;
    SshdProcess target;
    QTemporaryDir dir;

    bool start(const QString &jumpExtra = {})
    {
        if (!jump.start(jumpExtra) || !target.start())
            return false;
        // The target also accepts the jump harness's client key.
        const QByteArray key = opsdeck::test::readFile(jump.clientKey() + QStringLiteral(".pub"));
        const QString authorized = target.path(QStringLiteral("authorized_keys"));
        return opsdeck::test::writeFile(authorized, opsdeck::test::readFile(authorized) + key) &&
               writeKnownHosts(jump.knownHostsLine() + u'\n' + target.knownHostsLine() + u'\n') &&
               writeConfig(QStringLiteral("ProxyJump jump"));
    }
    QString config() const { return dir.filePath(QStringLiteral("ssh_config")); }
    QString knownHosts() const { return dir.filePath(QStringLiteral("known_hosts")); }
    bool writeKnownHosts(const QString &text) const
    {
        return opsdeck::test::writeFile(knownHosts(), text.toUtf8());
    }
    bool writeConfig(const QString &behindProxy) const
    {
        const QString entry = QStringLiteral("Host %1\n  HostName 127.0.0.1\n  Port %2\n"
                                             "  User %3\n  IdentityFile %4\n"
                                             "  IdentitiesOnly yes\n  UserKnownHostsFile %5\n");
        const QString user = SshdProcess::userName();
        const QString text = entry.arg(QStringLiteral("jump"))
                                 .arg(jump.port())
                                 .arg(user, jump.clientKey(), knownHosts()) +
                             entry.arg(QStringLiteral("behind"))
                                 .arg(target.port())
                                 .arg(user, jump.clientKey(), knownHosts()) +
                             QStringLiteral("  %1\n").arg(behindProxy);
        return opsdeck::test::writeFile(config(), text.toUtf8());
    }
    SshSettings settings() const
    {
        SshSettings settings = opsdeck::test::sshSettings(jump);
        settings.host = QStringLiteral("behind");
        settings.configFile = config();
        settings.knownHostsFile = knownHosts();
        return settings;
    }
};

CommandResult run(SshTransport &transport, const QString &script)
{
    CommandRequest request;
    request.script = script;
    request.deadline = 30s;
    return runAndWait(transport, request);
}

int openFdCount()
{
    return static_cast<int>(
        QDir(QStringLiteral("/proc/self/fd")).entryList(QDir::Files | QDir::System).size());
}

} // namespace

TEST(SshJump, ReadsLibsshFormOfProxyJump)
{
    QString more;
    auto hop = SshJump::fromProxyCommand(QStringLiteral("ssh -W '[%h]:%p' j1"), &more);
    ASSERT_TRUE(hop);
    EXPECT_EQ(hop->host, QStringLiteral("j1"));
    EXPECT_EQ(hop->port, 0);
    EXPECT_TRUE(more.isEmpty());
    hop = SshJump::fromProxyCommand(
        QStringLiteral("ssh -l bob -p 2222 -J alice@j3:23 -W '[%h]:%p' j2"), &more);
    ASSERT_TRUE(hop);
    EXPECT_EQ(hop->user, QStringLiteral("bob"));
    EXPECT_EQ(hop->port, 2222);
    EXPECT_EQ(hop->host, QStringLiteral("j2"));
    EXPECT_EQ(more, QStringLiteral("alice@j3:23"));
    EXPECT_FALSE(SshJump::fromProxyCommand(QStringLiteral("nc -X 5 -x proxy %h %p"), nullptr));
    EXPECT_FALSE(SshJump::fromProxyCommand(QStringLiteral("ssh -W %h:%p j1; rm -rf x"), nullptr));
}

TEST(SshJump, CommandRunsOnTheHostBehindTheJump)
{
    JumpSetup setup;
    ASSERT_TRUE(setup.start()) << setup.jump.errorText().toStdString();
    const int fdsBefore = openFdCount();
    {
        SshTransport transport(QStringLiteral("behind"), setup.settings());
        // The target's sshd sets SSH_CONNECTION; its 4th field is its own port.
        const CommandResult result = run(transport, QStringLiteral("echo $SSH_CONNECTION"));
        ASSERT_TRUE(result.succeeded())
            << result.describe().toStdString() << ": " << result.errorText.toStdString();
        EXPECT_TRUE(
            result.standardOutput.trimmed().endsWith(QByteArray::number(setup.target.port())))
            << result.standardOutput.toStdString();
        // The same session serves the next commands, bulk data both ways
        // through the pump (far past the SSH windows and the pump's buffer).
        const CommandResult bulk = run(transport, QStringLiteral("head -c 20971520 /dev/urandom"));
        ASSERT_TRUE(bulk.succeeded()) << bulk.errorText.toStdString();
        EXPECT_EQ(bulk.standardOutput.size() + bulk.standardOutputDropped, 20971520);
        std::printf("20 MiB through the jump host: %lld ms\n",
                    static_cast<long long>(bulk.elapsedMs));
        CommandRequest upload;
        upload.argv = {QStringLiteral("wc"), QStringLiteral("-c")};
        upload.input = QByteArray(3 * 1024 * 1024, 'x');
        upload.deadline = 30s;
        const CommandResult counted = runAndWait(transport, upload);
        ASSERT_TRUE(counted.succeeded()) << counted.errorText.toStdString();
        EXPECT_EQ(counted.standardOutput.trimmed(), QByteArray("3145728"));
        EXPECT_FALSE(setup.jump.connectionPids().isEmpty()) << "the jump host holds a session";
    }
    // Both sessions closed, and no socket of the socketpair left open.
    EXPECT_TRUE(
        opsdeck::test::waitUntil([&] { return setup.jump.connectionPids().isEmpty(); }, 5s));
    EXPECT_TRUE(
        opsdeck::test::waitUntil([&] { return setup.target.connectionPids().isEmpty(); }, 5s));
    EXPECT_EQ(openFdCount(), fdsBefore);

    // The path is through the jump host: without it the target, still up,
    // is not reached, and the failure names the jump host.
    SshTransport transport(QStringLiteral("behind"), setup.settings());
    ASSERT_TRUE(run(transport, QStringLiteral("true")).succeeded());
    setup.jump.stop();
    const CommandResult after = run(transport, QStringLiteral("true"));
    EXPECT_FALSE(after.succeeded());
    EXPECT_TRUE(after.errorText.contains(QStringLiteral("jump host jump")))
        << after.describe().toStdString() << ": " << after.errorText.toStdString();
}

TEST(SshJump, JumpHostRefusingForwardingIsNamed)
{
    JumpSetup setup;
    ASSERT_TRUE(setup.start(QStringLiteral("AllowTcpForwarding no")))
        << setup.jump.errorText().toStdString();
    SshTransport transport(QStringLiteral("behind"), setup.settings());
    const CommandResult result = run(transport, QStringLiteral("true"));
    EXPECT_EQ(result.outcome, CommandResult::Outcome::FailedToStart);
    EXPECT_TRUE(result.errorText.contains(QStringLiteral("jump host jump")))
        << result.errorText.toStdString();
    EXPECT_TRUE(result.errorText.contains(QStringLiteral("refused to forward")))
        << result.errorText.toStdString();
    EXPECT_EQ(transport.connectionState().failure, SshConnectionState::Failure::Connect);
}

TEST(SshJump, ChangedKeyOfTheHostBehindTheJumpIsRefused)
{
    JumpSetup setup;
    ASSERT_TRUE(setup.start()) << setup.jump.errorText().toStdString();
    // known_hosts holds another key (the jump host's) for the target's name.
    const QString wrong =
        setup.jump.knownHostsLine().replace(setup.jump.hostEntry(), setup.target.hostEntry());
    ASSERT_TRUE(setup.writeKnownHosts(setup.jump.knownHostsLine() + u'\n' + wrong + u'\n'));
    SshTransport transport(QStringLiteral("behind"), setup.settings());
    const CommandResult result = run(transport, QStringLiteral("true"));
    EXPECT_EQ(result.outcome, CommandResult::Outcome::FailedToStart);
    EXPECT_EQ(transport.connectionState().failure, SshConnectionState::Failure::HostKeyRefused)
        << transport.connectionState().reason.toStdString();
    EXPECT_TRUE(result.errorText.contains(setup.target.hostKeyFingerprint()))
        << result.errorText.toStdString();
    EXPECT_TRUE(result.errorText.contains(setup.knownHosts() + QStringLiteral(":2")))
        << result.errorText.toStdString();
}

TEST(SshJump, UnknownJumpHostKeyIsRefusedBeforeTheTarget)
{
    JumpSetup setup;
    ASSERT_TRUE(setup.start()) << setup.jump.errorText().toStdString();
    ASSERT_TRUE(setup.writeKnownHosts(setup.target.knownHostsLine() + u'\n'));
    SshTransport transport(QStringLiteral("behind"), setup.settings());
    const CommandResult result = run(transport, QStringLiteral("true"));
    EXPECT_EQ(result.outcome, CommandResult::Outcome::FailedToStart);
    EXPECT_EQ(transport.connectionState().failure, SshConnectionState::Failure::HostKeyRefused);
    EXPECT_TRUE(result.errorText.contains(QStringLiteral("jump host jump")))
        << result.errorText.toStdString();
    EXPECT_TRUE(result.errorText.contains(setup.jump.hostKeyFingerprint()))
        << result.errorText.toStdString();
    // The target was never reached (the harness's own port probe may linger a moment).
    EXPECT_TRUE(
        opsdeck::test::waitUntil([&] { return setup.target.connectionPids().isEmpty(); }, 3s));
}

TEST(SshJump, ProxyCommandIsStillRefused)
{
    JumpSetup setup;
    ASSERT_TRUE(setup.start()) << setup.jump.errorText().toStdString();
    ASSERT_TRUE(setup.writeConfig(QStringLiteral("ProxyCommand nc %h %p")));
    SshTransport transport(QStringLiteral("behind"), setup.settings());
    const CommandResult result = run(transport, QStringLiteral("true"));
    EXPECT_EQ(result.outcome, CommandResult::Outcome::FailedToStart);
    EXPECT_TRUE(result.errorText.contains(QStringLiteral("ProxyCommand is not supported")))
        << result.errorText.toStdString();
    EXPECT_EQ(transport.connectionState().failure, SshConnectionState::Failure::Config);
}

TEST(SshJump, ALoopInTheConfigEnds)
{
    JumpSetup setup;
    ASSERT_TRUE(setup.start()) << setup.jump.errorText().toStdString();
    // Every host, the jump host included, jumps through `jump`.
    const QString text = QString::fromUtf8(opsdeck::test::readFile(setup.config())) +
                         QStringLiteral("Host *\n  ProxyJump jump\n");
    ASSERT_TRUE(opsdeck::test::writeFile(setup.config(), text.toUtf8()));
    SshTransport transport(QStringLiteral("behind"), setup.settings());
    const CommandResult result = run(transport, QStringLiteral("true"));
    EXPECT_EQ(result.outcome, CommandResult::Outcome::FailedToStart);
    EXPECT_TRUE(result.errorText.contains(QStringLiteral("a loop in the ssh config")))
        << result.errorText.toStdString();
}

TEST(SshJump, CommandLineGoesThroughTheJump)
{
    JumpSetup setup;
    ASSERT_TRUE(setup.start()) << setup.jump.errorText().toStdString();
    const auto cli = [&](const QString &script) {
        QProcess process;
        process.start(opsdeck::test::binPath(QStringLiteral("opsdeck-cli")),
                      {QStringLiteral("ssh"), QStringLiteral("behind"),
                       QStringLiteral("--ssh-config"), setup.config(),
                       QStringLiteral("--known-hosts"), setup.knownHosts(), QStringLiteral("--"),
                       QStringLiteral("sh"), QStringLiteral("-c"), script});
        const bool finished = process.waitForFinished(60000);
        if (!finished)
            process.kill();
        process.waitForFinished(5000);
        const QByteArray output = process.readAllStandardOutput() + process.readAllStandardError();
        return std::make_pair(finished ? process.exitCode() : -1, output);
    };
    const auto [code, output] = cli(QStringLiteral("echo behind; exit 5"));
    EXPECT_EQ(code, 5) << output.toStdString();
    EXPECT_TRUE(output.contains("behind")) << output.toStdString();
    // The jump host's key is checked too: unknown -> refused, exit 4.
    ASSERT_TRUE(setup.writeKnownHosts(setup.target.knownHostsLine() + u'\n'));
    const auto [refused, message] = cli(QStringLiteral("true"));
    EXPECT_EQ(refused, 4) << message.toStdString();
    EXPECT_TRUE(message.contains("jump host jump")) << message.toStdString();
}

// The jump host's host-key decision is audited like the target's: opsdeck-cli
// through a jump host whose key is unknown writes a refusal naming the jump
// host (the target is never reached). With the jump host known and the
// target's key accepted by fingerprint, only the target's acceptance is
// written (a matched key is routine).
TEST(SshJump, JumpHostKeyDecisionIsAudited)
{
    JumpSetup setup;
    ASSERT_TRUE(setup.start()) << setup.jump.errorText().toStdString();
    ASSERT_TRUE(setup.writeKnownHosts(setup.target.knownHostsLine() + u'\n'));
    QTemporaryDir data;
    const auto cli = [&](const QStringList &options) {
        QProcess process;
        process.start(opsdeck::test::binPath(QStringLiteral("opsdeck-cli")),
                      QStringList{QStringLiteral("ssh"), QStringLiteral("behind"),
                                  QStringLiteral("--ssh-config"), setup.config(),
                                  QStringLiteral("--known-hosts"), setup.knownHosts(),
                                  QStringLiteral("--data-dir"), data.path()}
                          << options << QStringLiteral("--") << QStringLiteral("true"));
        const bool finished = process.waitForFinished(60000);
        if (!finished)
            process.kill();
        process.waitForFinished(5000);
        return std::make_pair(finished ? process.exitCode() : -1,
                              QString::fromUtf8(process.readAllStandardError()));
    };
    const auto [refused, error] = cli({});
    EXPECT_EQ(refused, 4) << error.toStdString();

    const opsdeck::history::AuditLog audit(opsdeck::history::AuditLog::pathIn(data.path()));
    auto entries = audit.read();
    ASSERT_EQ(entries.size(), 1) << error.toStdString();
    EXPECT_EQ(entries[0].kind, QStringLiteral("host-key"));
    EXPECT_EQ(entries[0].action, QStringLiteral("refused-unknown"));
    EXPECT_EQ(entries[0].host, QStringLiteral("jump"));
    const std::string detail = entries[0].detail.toStdString();
    EXPECT_TRUE(
        entries[0].detail.contains(setup.jump.hostEntry() + QStringLiteral(" (ProxyJump hop)")))
        << detail;
    EXPECT_TRUE(entries[0].detail.contains(setup.jump.hostKeyFingerprint())) << detail;
    EXPECT_FALSE(entries[0].detail.contains(setup.target.hostEntry())) << detail;

    ASSERT_TRUE(setup.writeKnownHosts(setup.jump.knownHostsLine() + u'\n'));
    const auto [accepted, acceptedError] =
        cli({QStringLiteral("--accept-new-host-key"), setup.target.hostKeyFingerprint()});
    EXPECT_EQ(accepted, 0) << acceptedError.toStdString();
    entries = audit.read();
    ASSERT_EQ(entries.size(), 2) << acceptedError.toStdString();
    EXPECT_EQ(entries[1].action, QStringLiteral("accepted-new"));
    EXPECT_EQ(entries[1].host, QStringLiteral("behind"));
    EXPECT_TRUE(entries[1].detail.contains(setup.target.hostKeyFingerprint()))
        << entries[1].detail.toStdString();
    EXPECT_FALSE(entries[1].detail.contains(QStringLiteral("ProxyJump hop")))
        << entries[1].detail.toStdString();
    // Verified as a user does, with the key the CLI kept in the secret store.
    QString verified;
    EXPECT_EQ(opsdeck::test::auditVerify(data.path(), &verified), 0) << verified.toStdString();
}
