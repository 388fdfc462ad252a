// Password, keyboard-interactive and key passphrases from the real keychain
// (gnome-keyring of the test session, packaging/test.sh) against real sshd
// variants with PAM, as a throwaway user with a random password (TestUser;
// never root). No prompt is shown when the keychain holds the secret, a
// missing one is asked once, a wrong one fails naming the methods, and no
// secret reaches the result, the state or the log.
#include "logcapture.h"
#include "secretstore.h"
#include "sshauthenticator.h"
#include "sshfixture.h"
#include "sshsecrets.h"
#include "sshtransport.h"
#include "synchronousrun.h"
#include "testuser.h"

#include <QCoreApplication>
#include <QProcess>
#include <atomic>
#include <gtest/gtest.h>
#include <memory>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sstream>

using namespace std::chrono_literals;
using opsdeck::remote::CommandRequest;
using opsdeck::remote::CommandResult;
using opsdeck::remote::runAndWait;
using opsdeck::remote::SshAuthenticator;
using opsdeck::remote::SshConnectionState;
using opsdeck::remote::SshSecrets;
using opsdeck::remote::SshTransport;
using opsdeck::secrets::SecretStore;
using opsdeck::test::SshdProcess;
using opsdeck::test::TestUser;
using Authentication = SshdProcess::Authentication;

using opsdeck::test::LogCapture;

namespace {

// A new ed25519 key pair at `path` (and `path`.pub), encrypted with `passphrase`.
bool makeEncryptedKey(const QString &path, const QByteArray &passphrase)
{
    QProcess keygen;
    keygen.start(QStringLiteral("ssh-keygen"),
                 {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                  QStringLiteral("-N"), QString::fromLatin1(passphrase), QStringLiteral("-f"),
                  path});
    return keygen.waitForFinished(20000) && keygen.exitCode() == 0;
}

CommandRequest whoAmI()
{
    CommandRequest request;
    request.argv = {QStringLiteral("id"), QStringLiteral("-un")};
    request.deadline = 20s;
    return request;
}

class SshSecretsAuth : public testing::Test
{
protected:
    static void SetUpTestSuite()
    {
        s_user = std::make_unique<TestUser>(TestUser::uniqueName(QStringLiteral("pw")));
        ASSERT_TRUE(s_user->create()) << s_user->errorText().toStdString();
        s_password = TestUser::randomPassword();
        ASSERT_TRUE(s_user->setPassword(s_password)) << s_user->errorText().toStdString();
    }
    static void TearDownTestSuite()
    {
        s_user.reset();
        s_password.fill('\0');
    }
    void TearDown() override
    {
        for (const QString &key : std::as_const(m_keys))
            m_store.removeBlocking(key);
    }

    bool startSshd(SshdProcess &sshd, Authentication authentication)
    {
        sshd.setLoginUser(s_user->name());
        sshd.setAuthentication(authentication);
        return sshd.start();
    }
    void storeSecret(const QString &key, const QByteArray &value)
    {
        m_keys << key;
        const auto written = m_store.writeBlocking(key, value);
        ASSERT_TRUE(written.ok()) << written.error.toStdString();
    }
    QString passwordKey() const
    {
        return SshSecrets::passwordKey(SshdProcess::alias(), s_user->name());
    }
    // Settings with the keychain callbacks and a prompt hook that counts its calls.
    opsdeck::remote::SshSettings settingsFor(const SshdProcess &sshd, QByteArray promptAnswer = {})
    {
        auto settings = opsdeck::test::sshSettings(sshd);
        SshSecrets::install(
            settings,
            [this, promptAnswer](const QString &question) -> std::optional<QByteArray> {
                ++m_prompts;
                m_lastQuestion = question;
                if (promptAnswer.isEmpty())
                    return std::nullopt;
                return promptAnswer;
            },
            &m_store);
        return settings;
    }
    // The password appears nowhere the operator or the log can see.
    void expectNoSecret(const QByteArray &secret, const CommandResult &result,
                        const SshTransport &transport, const std::string &log)
    {
        EXPECT_FALSE(result.standardOutput.contains(secret));
        EXPECT_FALSE(result.standardError.contains(secret));
        EXPECT_FALSE(result.errorText.contains(QString::fromLatin1(secret)));
        EXPECT_FALSE(transport.connectionState().reason.contains(QString::fromLatin1(secret)));
        EXPECT_EQ(log.find(secret.toStdString()), std::string::npos);
    }

    static std::unique_ptr<TestUser> s_user;
    static QByteArray s_password;
    SecretStore m_store{SecretStore::Settings{}, nullptr};
    QStringList m_keys;
    std::atomic<int> m_prompts{0};
    QString m_lastQuestion;
};

std::unique_ptr<TestUser> SshSecretsAuth::s_user;
QByteArray SshSecretsAuth::s_password;

} // namespace

TEST(SshSecretsKeys, NamesOfTheKeychainEntries)
{
    EXPECT_EQ(SshSecrets::passwordKey(QStringLiteral("gpu-node-1"), QStringLiteral("root")),
              QStringLiteral("ssh/gpu-node-1/root"));
    EXPECT_EQ(SshSecrets::passphraseKey(QStringLiteral("/home/op/.ssh/id_ed25519")),
              QStringLiteral("ssh/key//home/op/.ssh/id_ed25519"));
    // Keys are printable ASCII without spaces (SecretStore::keyProblem).
    EXPECT_EQ(SshSecrets::passphraseKey(QStringLiteral("/home/op/my keys/id_ed25519")),
              QStringLiteral("ssh/key//home/op/my%20keys/id_ed25519"));
    const QString longKey = SshSecrets::passphraseKey(QStringLiteral("/") + QString(300, u'k'));
    EXPECT_TRUE(longKey.startsWith(QStringLiteral("ssh/key/sha256:"))) << longKey.toStdString();
    EXPECT_TRUE(SecretStore::keyProblem(longKey).isEmpty());
}

TEST(SshSecretsKeys, OnlyHiddenPasswordPromptsAreAnswered)
{
    EXPECT_TRUE(SshAuthenticator::asksForPassword(QStringLiteral("Password:"), false));
    EXPECT_TRUE(SshAuthenticator::asksForPassword(QStringLiteral("op@host's password:"), false));
    EXPECT_FALSE(SshAuthenticator::asksForPassword(QStringLiteral("Password:"), true));
    EXPECT_FALSE(SshAuthenticator::asksForPassword(QStringLiteral("Verification code:"), false));
}

TEST_F(SshSecretsAuth, PasswordFromTheKeychainWithoutAPrompt)
{
    SshdProcess sshd;
    ASSERT_TRUE(startSshd(sshd, Authentication::Password)) << sshd.errorText().toStdString();
    storeSecret(passwordKey(), s_password);
    LogCapture log;
    SshTransport transport(QStringLiteral("test-host"), settingsFor(sshd));
    const CommandResult result = runAndWait(transport, whoAmI());
    ASSERT_TRUE(result.succeeded())
        << result.errorText.toStdString() << sshd.errorText().toStdString();
    EXPECT_EQ(result.standardOutput, s_user->name().toUtf8() + '\n');
    EXPECT_EQ(m_prompts, 0) << "the keychain had it: no question";
    EXPECT_NE(log.text().find("authenticated by password"), std::string::npos) << log.text();
    expectNoSecret(s_password, result, transport, log.text());
}

TEST_F(SshSecretsAuth, KeyboardInteractiveFromTheKeychainWithoutAPrompt)
{
    SshdProcess sshd;
    ASSERT_TRUE(startSshd(sshd, Authentication::KeyboardInteractive))
        << sshd.errorText().toStdString();
    storeSecret(passwordKey(), s_password);
    LogCapture log;
    SshTransport transport(QStringLiteral("test-host"), settingsFor(sshd));
    const CommandResult result = runAndWait(transport, whoAmI());
    ASSERT_TRUE(result.succeeded())
        << result.errorText.toStdString() << sshd.errorText().toStdString();
    EXPECT_EQ(result.standardOutput, s_user->name().toUtf8() + '\n');
    EXPECT_EQ(m_prompts, 0);
    EXPECT_NE(log.text().find("authenticated by keyboard-interactive"), std::string::npos)
        << log.text();
    expectNoSecret(s_password, result, transport, log.text());
}

TEST_F(SshSecretsAuth, WrongPasswordFailsNamingTheMethods)
{
    const QByteArray wrong = TestUser::randomPassword();
    storeSecret(passwordKey(), wrong);
    for (const auto &[authentication, method] :
         {std::pair{Authentication::Password, QStringLiteral("password")},
          std::pair{Authentication::KeyboardInteractive, QStringLiteral("keyboard-interactive")}}) {
        SCOPED_TRACE(method.toStdString());
        SshdProcess sshd;
        ASSERT_TRUE(startSshd(sshd, authentication)) << sshd.errorText().toStdString();
        LogCapture log;
        SshTransport transport(QStringLiteral("test-host"), settingsFor(sshd));
        const CommandResult result = runAndWait(transport, whoAmI());
        EXPECT_EQ(result.outcome, CommandResult::Outcome::FailedToStart);
        const SshConnectionState state = transport.connectionState();
        EXPECT_EQ(state.failure, SshConnectionState::Failure::Auth);
        const std::string reason = state.reason.toStdString();
        EXPECT_TRUE(state.reason.contains(QStringLiteral("tried none, %1").arg(method))) << reason;
        EXPECT_TRUE(state.reason.contains(QStringLiteral("the server allows %1").arg(method)))
            << reason;
        EXPECT_TRUE(state.reason.contains(method + QStringLiteral(": "))) << reason;
        EXPECT_TRUE(state.reason.contains(QStringLiteral("refused"))) << reason;
        EXPECT_EQ(m_prompts, 0) << "a wrong keychain entry is not a reason to ask";
        expectNoSecret(wrong, result, transport, log.text());
    }
}

// No password anywhere: keyboard-interactive fails at once, naming the
// server's prompt, instead of waiting for an answer.
TEST_F(SshSecretsAuth, KeyboardInteractiveWithoutAPasswordNamesThePrompt)
{
    SshdProcess sshd;
    ASSERT_TRUE(startSshd(sshd, Authentication::KeyboardInteractive))
        << sshd.errorText().toStdString();
    SshTransport transport(QStringLiteral("test-host"), settingsFor(sshd));
    EXPECT_EQ(runAndWait(transport, whoAmI()).outcome, CommandResult::Outcome::FailedToStart);
    const QString reason = transport.connectionState().reason;
    EXPECT_TRUE(reason.contains(QStringLiteral("keyboard-interactive: the server asked "
                                               "\"Password:\" and no password is in the keychain "
                                               "or given")))
        << reason.toStdString();
    EXPECT_EQ(m_prompts, 1) << "the hook was asked (and declined)";
}

TEST_F(SshSecretsAuth, AMissingPasswordIsAskedOnceNotAtEachReconnect)
{
    SshdProcess sshd;
    ASSERT_TRUE(startSshd(sshd, Authentication::Password)) << sshd.errorText().toStdString();
    // Nothing in the keychain: the hook is asked; its wrong answer is not asked again.
    SshTransport transport(QStringLiteral("test-host"),
                           settingsFor(sshd, QByteArrayLiteral("not-the-password")));
    EXPECT_FALSE(runAndWait(transport, whoAmI()).succeeded());
    EXPECT_FALSE(runAndWait(transport, whoAmI()).succeeded());
    EXPECT_EQ(m_prompts, 1);
    EXPECT_EQ(m_lastQuestion,
              QStringLiteral("Password for %1@%2: ").arg(s_user->name(), SshdProcess::alias()));

    SshTransport asked(QStringLiteral("test-host"), settingsFor(sshd, s_password));
    const CommandResult result = runAndWait(asked, whoAmI());
    ASSERT_TRUE(result.succeeded()) << result.errorText.toStdString();
    EXPECT_EQ(result.standardOutput, s_user->name().toUtf8() + '\n');
    EXPECT_EQ(m_prompts, 2);
}

TEST_F(SshSecretsAuth, EncryptedKeyWithItsPassphraseInTheKeychain)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    const QString locked = sshd.path(QStringLiteral("locked_key"));
    const QByteArray passphrase = TestUser::randomPassword();
    ASSERT_TRUE(makeEncryptedKey(locked, passphrase));
    QFile authorized(sshd.path(QStringLiteral("authorized_keys")));
    ASSERT_TRUE(authorized.open(QIODevice::WriteOnly | QIODevice::Truncate));
    authorized.write(opsdeck::test::readFile(locked + QStringLiteral(".pub")));
    authorized.close();
    storeSecret(SshSecrets::passphraseKey(locked), passphrase);

    LogCapture log;
    auto settings = settingsFor(sshd);
    settings.identityFiles = {locked};
    SshTransport transport(QStringLiteral("test-host"), settings);
    const CommandResult result = runAndWait(transport, whoAmI());
    ASSERT_TRUE(result.succeeded()) << transport.connectionState().reason.toStdString();
    EXPECT_EQ(result.standardOutput, SshdProcess::userName().toUtf8() + '\n');
    EXPECT_EQ(m_prompts, 0);
    EXPECT_NE(log.text().find(
                  QStringLiteral("authenticated by publickey (%1)").arg(locked).toStdString()),
              std::string::npos)
        << log.text();
    expectNoSecret(passphrase, result, transport, log.text());
}

// opsdeck-cli ssh takes the password from the keychain; with stdin not a
// terminal (a pipe here) it never asks, and without a stored password it
// fails at once instead of waiting for an answer.
TEST_F(SshSecretsAuth, CliUsesTheKeychainAndNeverPromptsWithoutATerminal)
{
    SshdProcess sshd;
    ASSERT_TRUE(startSshd(sshd, Authentication::Password)) << sshd.errorText().toStdString();
    auto runCli = [&sshd](QProcess &cli) {
        cli.start(opsdeck::test::binPath(QStringLiteral("opsdeck-cli")),
                  {QStringLiteral("ssh"), SshdProcess::alias(), QStringLiteral("--ssh-config"),
                   sshd.sshConfig(), QStringLiteral("--known-hosts"), sshd.knownHosts(),
                   QStringLiteral("--"), QStringLiteral("id"), QStringLiteral("-un")});
        const bool finished = cli.waitForFinished(60000);
        if (!finished) {
            cli.kill();
            cli.waitForFinished(5000);
        }
        return finished;
    };

    QProcess without;
    ASSERT_TRUE(runCli(without)) << "no password and no terminal: it must not wait";
    const QString refused = QString::fromUtf8(without.readAllStandardError());
    EXPECT_EQ(without.exitCode(), 1) << refused.toStdString();
    EXPECT_FALSE(refused.contains(QStringLiteral("Password for"))) << refused.toStdString();
    EXPECT_TRUE(refused.contains(QStringLiteral("password: none in the keychain or given")))
        << refused.toStdString();

    storeSecret(passwordKey(), s_password);
    QProcess with;
    ASSERT_TRUE(runCli(with));
    const QByteArray output = with.readAllStandardOutput();
    const QByteArray error = with.readAllStandardError();
    EXPECT_EQ(with.exitCode(), 0) << error.constData();
    EXPECT_EQ(output, s_user->name().toUtf8() + '\n');
    EXPECT_FALSE(error.contains("Password for")) << error.constData();
    EXPECT_FALSE(output.contains(s_password));
    EXPECT_FALSE(error.contains(s_password));
}

// On a terminal (a pty from util-linux `script`) a password the keychain does
// not hold is asked once, with echo off: the answer never shows on the terminal.
TEST_F(SshSecretsAuth, CliAsksOnceOnATerminalWithEchoOff)
{
    SshdProcess sshd;
    ASSERT_TRUE(startSshd(sshd, Authentication::Password)) << sshd.errorText().toStdString();
    const QStringList cli{opsdeck::test::binPath(QStringLiteral("opsdeck-cli")),
                          QStringLiteral("ssh"),
                          SshdProcess::alias(),
                          QStringLiteral("--ssh-config"),
                          sshd.sshConfig(),
                          QStringLiteral("--known-hosts"),
                          sshd.knownHosts(),
                          QStringLiteral("--"),
                          QStringLiteral("id"),
                          QStringLiteral("-un")};
    QStringList quoted;
    for (const QString &word : cli)
        quoted << QStringLiteral("'%1'").arg(word);
    QProcess terminal;
    terminal.setProcessChannelMode(QProcess::MergedChannels);
    terminal.start(QStringLiteral("script"),
                   {QStringLiteral("-qec"), quoted.join(u' '), QStringLiteral("/dev/null")});
    QByteArray seen;
    const QByteArray question =
        QStringLiteral("Password for %1@%2: ").arg(s_user->name(), SshdProcess::alias()).toUtf8();
    // The answer is typed only once the question is there (with echo off by then).
    ASSERT_TRUE(opsdeck::test::waitUntil(
        [&] {
            seen += terminal.readAll();
            return seen.contains(question);
        },
        30s))
        << seen.constData();
    terminal.write(s_password + '\n');
    const bool finished = opsdeck::test::waitUntil(
        [&] {
            seen += terminal.readAll();
            return terminal.state() == QProcess::NotRunning;
        },
        30s);
    if (!finished) {
        terminal.kill();
        terminal.waitForFinished(5000);
    }
    ASSERT_TRUE(finished) << seen.constData();
    seen += terminal.readAll();
    EXPECT_EQ(terminal.exitCode(), 0) << seen.constData();
    EXPECT_TRUE(seen.contains(QByteArray(s_user->name().toUtf8() + "\r\n"))) << seen.constData();
    EXPECT_EQ(seen.count(question), 1) << seen.constData();
    EXPECT_FALSE(seen.contains(s_password)) << "the password was echoed";
}

// A server allowing both keyboard-interactive and password: keyboard-interactive
// is tried first, the password is fetched once for both, and the login is by
// keyboard-interactive (as sshd's own log says too).
TEST_F(SshSecretsAuth, KeyboardInteractiveIsTriedBeforePassword)
{
    SshdProcess sshd;
    ASSERT_TRUE(startSshd(sshd, Authentication::KeyboardInteractiveAndPassword))
        << sshd.errorText().toStdString();
    // Not in the keychain: the hook's wrong answer serves both methods, asked once.
    {
        SshTransport transport(QStringLiteral("test-host"),
                               settingsFor(sshd, QByteArrayLiteral("not-the-password")));
        EXPECT_EQ(runAndWait(transport, whoAmI()).outcome, CommandResult::Outcome::FailedToStart);
        const QString reason = transport.connectionState().reason;
        EXPECT_TRUE(reason.contains(QStringLiteral("tried none, keyboard-interactive, password; "
                                                   "the server allows keyboard-interactive, "
                                                   "password")))
            << reason.toStdString();
        EXPECT_LT(reason.indexOf(QStringLiteral("keyboard-interactive: the password was refused")),
                  reason.indexOf(QStringLiteral("password: refused by the server")))
            << reason.toStdString();
        EXPECT_GE(reason.indexOf(QStringLiteral("keyboard-interactive: the password was refused")),
                  0)
            << reason.toStdString();
        EXPECT_EQ(m_prompts, 1) << "one answer for both methods";
    }

    storeSecret(passwordKey(), s_password);
    LogCapture log;
    SshTransport transport(QStringLiteral("test-host"), settingsFor(sshd));
    const CommandResult result = runAndWait(transport, whoAmI());
    ASSERT_TRUE(result.succeeded()) << transport.connectionState().reason.toStdString();
    EXPECT_EQ(result.standardOutput, s_user->name().toUtf8() + '\n');
    EXPECT_NE(log.text().find("authenticated by keyboard-interactive"), std::string::npos)
        << log.text();
    EXPECT_TRUE(opsdeck::test::waitUntil(
        [&] {
            return sshd.errorText().contains(
                QStringLiteral("Accepted keyboard-interactive/pam for %1").arg(s_user->name()));
        },
        5s))
        << sshd.errorText().toStdString();
    EXPECT_FALSE(sshd.errorText().contains(QStringLiteral("Accepted password")));
    expectNoSecret(s_password, result, transport, log.text());
}

// An encrypted key's passphrase the keychain does not hold is asked once; a
// wrong answer is not asked again at the next connect of the same transport.
TEST_F(SshSecretsAuth, AMissingPassphraseIsAskedOnceNotAtEachReconnect)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    const QString locked = sshd.path(QStringLiteral("locked_key"));
    const QByteArray passphrase = TestUser::randomPassword();
    ASSERT_TRUE(makeEncryptedKey(locked, passphrase));
    ASSERT_TRUE(opsdeck::test::writeFile(sshd.path(QStringLiteral("authorized_keys")),
                                         opsdeck::test::readFile(locked + QStringLiteral(".pub"))));

    auto settings = settingsFor(sshd, QByteArrayLiteral("not-the-passphrase"));
    settings.identityFiles = {locked};
    SshTransport transport(QStringLiteral("test-host"), settings);
    EXPECT_FALSE(runAndWait(transport, whoAmI()).succeeded());
    EXPECT_TRUE(transport.connectionState().reason.contains(
        QStringLiteral("%1: the passphrase given does not open it").arg(locked)))
        << transport.connectionState().reason.toStdString();
    // A refused login holds the host's commands for SshJobQueue::operatorWait
    // (they fail at once with the old reason); the reconnect after it skips
    // the key without asking again.
    ASSERT_TRUE(opsdeck::test::waitUntil(
        [&] {
            runAndWait(transport, whoAmI());
            return transport.connectionState().reason.contains(
                QStringLiteral("%1: passphrase-protected, skipped").arg(locked));
        },
        30s))
        << transport.connectionState().reason.toStdString();
    EXPECT_EQ(m_prompts, 1);
    EXPECT_EQ(m_lastQuestion, QStringLiteral("Passphrase for key %1: ").arg(locked));

    LogCapture log;
    auto right = settingsFor(sshd, passphrase);
    right.identityFiles = {locked};
    SshTransport asked(QStringLiteral("test-host"), right);
    const CommandResult result = runAndWait(asked, whoAmI());
    ASSERT_TRUE(result.succeeded()) << asked.connectionState().reason.toStdString();
    EXPECT_EQ(result.standardOutput, SshdProcess::userName().toUtf8() + '\n');
    EXPECT_EQ(m_prompts, 2);
    EXPECT_NE(log.text().find(
                  QStringLiteral("authenticated by publickey (%1)").arg(locked).toStdString()),
              std::string::npos)
        << log.text();
    expectNoSecret(passphrase, result, asked, log.text());
}
