// Authentication failures name the methods tried and the server's allowed ones.
#include "sshfixture.h"
#include "sshtransport.h"
#include "synchronousrun.h"

#include <gtest/gtest.h>

using opsdeck::remote::CommandRequest;
using opsdeck::remote::CommandResult;
using opsdeck::remote::runAndWait;
using opsdeck::remote::SshConnectionState;
using opsdeck::remote::SshTransport;
using opsdeck::test::SshdProcess;

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
