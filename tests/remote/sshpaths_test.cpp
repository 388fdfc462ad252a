// The SSH directory OpsDeck uses when nothing names one is ~/.ssh of the
// password database's entry for this user, as OpenSSH's: not $HOME. Each test
// points $HOME at an empty temp dir; code that followed $HOME would land there.
// Nothing here writes to the real ~/.ssh (an unknown key is refused, not saved).
#include "sshfixture.h"
#include "sshpaths.h"
#include "sshtransport.h"
#include "synchronousrun.h"

#include <QTemporaryDir>
#include <gtest/gtest.h>
#include <mutex>
#include <pwd.h>
#include <unistd.h>

using opsdeck::remote::SshPaths;
using opsdeck::remote::SshSettings;
using opsdeck::test::SshdProcess;

namespace {

QString passwordDatabaseSshDir()
{
    const passwd *entry = ::getpwuid(::getuid());
    return entry ? QFile::decodeName(entry->pw_dir) + QStringLiteral("/.ssh") : QString();
}

// $HOME points at an empty temp dir for the test's lifetime.
class FakeHome
{
public:
    FakeHome() : m_old(qgetenv("HOME")), m_hadHome(qEnvironmentVariableIsSet("HOME"))
    {
        qputenv("HOME", QFile::encodeName(m_dir.path()));
    }
    ~FakeHome()
    {
        if (m_hadHome)
            qputenv("HOME", m_old);
        else
            qunsetenv("HOME");
    }
    FakeHome(const FakeHome &) = delete;
    FakeHome &operator=(const FakeHome &) = delete;
    QString path() const { return m_dir.path(); }

private:
    QTemporaryDir m_dir;
    QByteArray m_old;
    bool m_hadHome;
};

} // namespace

TEST(SshPaths, DefaultFilesAreUnderThePasswordDatabaseHomeNotHome)
{
    const FakeHome home;
    const QString expected = passwordDatabaseSshDir();
    ASSERT_FALSE(expected.isEmpty()) << "this user has no password database entry";
    ASSERT_FALSE(expected.startsWith(home.path())) << "the fake home must differ from the real one";
    const SshSettings defaults;
    EXPECT_EQ(SshPaths::sshDirectory(defaults), expected);
    EXPECT_EQ(SshPaths::configFile(defaults), expected + QStringLiteral("/config"));
    EXPECT_EQ(SshPaths::knownHostsFile(defaults), expected + QStringLiteral("/known_hosts"));
    EXPECT_EQ(SshPaths::expandTilde(QStringLiteral("~/.ssh/config")),
              expected + QStringLiteral("/config"));
}

TEST(SshPaths, NamedFilesAndDirectoryWinOverTheDefaults)
{
    SshSettings settings;
    settings.sshDirectory = QStringLiteral("/srv/ops/dotssh");
    EXPECT_EQ(SshPaths::configFile(settings), QStringLiteral("/srv/ops/dotssh/config"));
    EXPECT_EQ(SshPaths::knownHostsFile(settings), QStringLiteral("/srv/ops/dotssh/known_hosts"));
    settings.configFile = QStringLiteral("/etc/opsdeck/ssh_config");
    settings.knownHostsFile = QStringLiteral("/etc/opsdeck/known_hosts");
    EXPECT_EQ(SshPaths::configFile(settings), settings.configFile);
    EXPECT_EQ(SshPaths::knownHostsFile(settings), settings.knownHostsFile);
    EXPECT_EQ(SshPaths::expandTilde(QStringLiteral("/abs/~/x")), QStringLiteral("/abs/~/x"));
}

// What libssh really checks: the unknown key of the test sshd is refused, and
// the decision names the known_hosts it looked in.
TEST(SshPaths, AConnectChecksTheKnownHostsOfThePasswordDatabaseHome)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    const FakeHome home;
    // An empty config of our own: no UserKnownHostsFile, and the real
    // ~/.ssh/config is not read either.
    const QString config = QDir(home.path()).filePath(QStringLiteral("empty_config"));
    ASSERT_TRUE(opsdeck::test::writeFile(config, {}));
    SshSettings settings;
    settings.host = QStringLiteral("paths-test");
    settings.address = QStringLiteral("127.0.0.1");
    settings.port = sshd.port();
    settings.user = SshdProcess::userName();
    settings.configFile = config;
    settings.identityFiles = {sshd.clientKey()};
    settings.useAgent = false;
    std::mutex mutex;
    QString checked;
    settings.hostKeyDecided = [&](const opsdeck::remote::HostKeyDecision &decision, QString *) {
        const std::lock_guard lock(mutex);
        checked = decision.knownHostsFile;
        return true;
    };
    opsdeck::remote::SshTransport transport(settings.host, settings);
    opsdeck::remote::CommandRequest request;
    request.argv = {QStringLiteral("true")};
    const auto result = opsdeck::remote::runAndWait(transport, request);
    EXPECT_FALSE(result.succeeded()) << "a fresh host key cannot be known";
    const std::lock_guard lock(mutex);
    EXPECT_EQ(checked, passwordDatabaseSshDir() + QStringLiteral("/known_hosts"))
        << result.errorText.toStdString();
}
