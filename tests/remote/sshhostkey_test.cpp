// Host keys as OpenSSH's StrictHostKeyChecking=yes plus the exact-fingerprint
// way in: a changed key refused with the line to remove, an unknown key
// refused with its fingerprint, saved only when that exact one is given.
#include "sshfixture.h"
#include "sshtransport.h"
#include "synchronousrun.h"

#include <QCoreApplication>
#include <gtest/gtest.h>

using namespace std::chrono_literals;
using opsdeck::remote::CommandRequest;
using opsdeck::remote::CommandResult;
using opsdeck::remote::runAndWait;
using opsdeck::remote::SshConnectionState;
using opsdeck::remote::SshSettings;
using opsdeck::remote::SshTransport;
using opsdeck::test::SshdProcess;

namespace {

struct Attempt
{
    CommandResult result;
    SshConnectionState state;
    bool markerMade = false; ///< the command ran on the host
};

Attempt attempt(const SshdProcess &sshd, const SshSettings &settings)
{
    const QString marker = sshd.path(QStringLiteral("ran"));
    QFile::remove(marker);
    SshTransport transport(QStringLiteral("test-host"), settings);
    CommandRequest request;
    request.argv = {QStringLiteral("touch"), marker};
    Attempt a;
    a.result = runAndWait(transport, request);
    a.state = transport.connectionState();
    a.markerMade = QFile::exists(marker);
    return a;
}

} // namespace

TEST(SshHostKey, KnownKeyIsTrusted)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    const Attempt a = attempt(sshd, opsdeck::test::sshSettings(sshd));
    EXPECT_TRUE(a.result.succeeded()) << a.result.errorText.toStdString();
    EXPECT_TRUE(a.markerMade);
}

TEST(SshHostKey, ChangedKeyIsRefusedWithTheLineToRemove)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    // known_hosts line 2: this host:port with another key.
    ASSERT_TRUE(opsdeck::test::writeChangedHostKey(sshd));
    const QByteArray knownHosts = opsdeck::test::readFile(sshd.knownHosts());

    auto settings = opsdeck::test::sshSettings(sshd);
    // Even the server's exact fingerprint does not override a changed key.
    settings.acceptedFingerprint = sshd.hostKeyFingerprint();
    const Attempt a = attempt(sshd, settings);
    EXPECT_EQ(a.result.outcome, CommandResult::Outcome::FailedToStart);
    EXPECT_EQ(a.state.failure, SshConnectionState::Failure::HostKeyRefused);
    EXPECT_FALSE(a.markerMade);
    const std::string reason = a.state.reason.toStdString();
    EXPECT_TRUE(a.state.reason.contains(QStringLiteral("HOST KEY CHANGED"))) << reason;
    EXPECT_TRUE(a.state.reason.contains(QStringLiteral("man-in-the-middle"))) << reason;
    EXPECT_TRUE(a.state.reason.contains(sshd.knownHosts() + QStringLiteral(":2"))) << reason;
    EXPECT_FALSE(a.state.reason.contains(sshd.knownHosts() + QStringLiteral(":1"))) << reason;
    EXPECT_TRUE(a.state.reason.contains(QStringLiteral("ssh-keygen -R '%1'").arg(sshd.hostEntry())))
        << reason;
    EXPECT_TRUE(a.state.reason.contains(sshd.hostKeyFingerprint())) << reason;
    EXPECT_EQ(opsdeck::test::readFile(sshd.knownHosts()), knownHosts) << "known_hosts untouched";
}

TEST(SshHostKey, UnknownKeyIsRefusedWithItsFingerprint)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    ASSERT_TRUE(opsdeck::test::writeFile(sshd.knownHosts(), QByteArray()));
    auto settings = opsdeck::test::sshSettings(sshd);

    const Attempt refused = attempt(sshd, settings);
    EXPECT_EQ(refused.state.failure, SshConnectionState::Failure::HostKeyRefused);
    EXPECT_FALSE(refused.markerMade);
    EXPECT_TRUE(refused.state.reason.contains(QStringLiteral("unknown host key")))
        << refused.state.reason.toStdString();
    EXPECT_TRUE(refused.state.reason.contains(QStringLiteral("ssh-ed25519")));
    EXPECT_TRUE(refused.state.reason.contains(QStringLiteral("--accept-new-host-key ") +
                                              sshd.hostKeyFingerprint()))
        << refused.state.reason.toStdString();

    // A fingerprint that is not the server's: refused too, and said so.
    settings.acceptedFingerprint =
        SshdProcess::fingerprintOf(sshd.clientKey() + QStringLiteral(".pub"));
    const Attempt wrong = attempt(sshd, settings);
    EXPECT_EQ(wrong.state.failure, SshConnectionState::Failure::HostKeyRefused);
    EXPECT_TRUE(wrong.state.reason.contains(QStringLiteral("is not the server's")));
    EXPECT_FALSE(wrong.markerMade);
    EXPECT_TRUE(opsdeck::test::readFile(sshd.knownHosts()).isEmpty());
}

TEST(SshHostKey, ExactFingerprintAcceptsAndSavesTheKey)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    QFile::remove(sshd.knownHosts()); // also: no known_hosts file at all yet
    auto settings = opsdeck::test::sshSettings(sshd);
    settings.acceptedFingerprint = sshd.hostKeyFingerprint();
    const Attempt accepted = attempt(sshd, settings);
    EXPECT_TRUE(accepted.result.succeeded()) << accepted.result.errorText.toStdString();
    EXPECT_TRUE(accepted.markerMade);
    const QByteArray knownHosts = opsdeck::test::readFile(sshd.knownHosts());
    const QByteArray key = sshd.knownHostsLine().toUtf8().split(' ').value(2);
    EXPECT_TRUE(knownHosts.contains(key)) << knownHosts.data();

    // Saved: the next connection needs no fingerprint.
    settings.acceptedFingerprint.clear();
    const Attempt again = attempt(sshd, settings);
    EXPECT_TRUE(again.result.succeeded()) << again.result.errorText.toStdString();
}
