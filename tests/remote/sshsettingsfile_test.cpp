// The `[ssh]` group of opsdeck.conf names the ssh config and known_hosts for
// every run (`config_file`, `known_hosts_file`); `--ssh-config` and
// `--known-hosts` on the command line win over it. Checked with opsdeck-cli ssh
// against a test sshd, with $XDG_CONFIG_HOME in a temp dir (never the real
// settings) and no ssh-agent.
#include "clitest.h"
#include "hostconnections.h"
#include "sshfixture.h"

#include <QDir>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using opsdeck::hosts::HostConnections;
using opsdeck::test::SshdProcess;

namespace {

struct CliRun
{
    int exitCode = -1;
    QString standardError;
};

class SettingsFile
{
public:
    /// Writes `<temp>/opsdeck/opsdeck.conf` with `lines` under `[ssh]`.
    bool write(const QStringList &lines) const
    {
        return QDir().mkpath(m_dir.filePath(QStringLiteral("opsdeck"))) &&
               opsdeck::test::writeFile(
                   m_dir.filePath(QStringLiteral("opsdeck/opsdeck.conf")),
                   (QStringLiteral("[ssh]\n") + lines.join(u'\n') + u'\n').toUtf8());
    }

    /// `opsdeck-cli ssh opsdeck-test OPTIONS -- true` with this settings dir.
    CliRun runTrue(const QStringList &options) const
    {
        // No ssh-agent: the keys are the config's IdentityFile only.
        const opsdeck::test::CliRun cli = opsdeck::test::runCli(
            QStringList{QStringLiteral("ssh"), SshdProcess::alias(), QStringLiteral("--data-dir"),
                        m_dir.filePath(QStringLiteral("data")), QStringLiteral("--timeout"),
                        QStringLiteral("20")}
                << options << QStringLiteral("--") << QStringLiteral("true"),
            {}, std::chrono::seconds(60),
            {QStringLiteral("XDG_CONFIG_HOME=") + m_dir.path(), QStringLiteral("SSH_AUTH_SOCK=")});
        return {cli.exitCode, QString::fromUtf8(cli.standardError)};
    }

    QString path(const QString &name) const { return m_dir.filePath(name); }

private:
    QTemporaryDir m_dir;
};

} // namespace

// The alias, its port, user, key and known_hosts exist only in the test
// config: reaching the host proves the setting was read.
TEST(SshSettingsFile, TheConfigFileSettingMakesTheAliasReachable)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    const SettingsFile settings;
    ASSERT_TRUE(settings.write({QStringLiteral("config_file=%1").arg(sshd.sshConfig())}));
    const CliRun run = settings.runTrue({});
    EXPECT_EQ(run.exitCode, 0) << run.standardError.toStdString();
}

TEST(SshSettingsFile, SshConfigOnTheCommandLineWinsOverTheSetting)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    const SettingsFile settings;
    const QString missing = settings.path(QStringLiteral("no_such_config"));
    ASSERT_TRUE(settings.write({QStringLiteral("config_file=%1").arg(missing)}));
    // The setting alone: its (missing) file is the one used, and named.
    const CliRun fromSetting = settings.runTrue({});
    EXPECT_EQ(fromSetting.exitCode, 2) << fromSetting.standardError.toStdString();
    EXPECT_TRUE(fromSetting.standardError.contains(missing))
        << fromSetting.standardError.toStdString();
    const CliRun fromFlag = settings.runTrue({QStringLiteral("--ssh-config"), sshd.sshConfig()});
    EXPECT_EQ(fromFlag.exitCode, 0) << fromFlag.standardError.toStdString();
}

// The test config's UserKnownHostsFile holds the key; the setting's empty
// file must beat it (as --known-hosts does), and the flag beats the setting.
TEST(SshSettingsFile, KnownHostsSettingBeatsTheConfigAndTheFlagBeatsTheSetting)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    const SettingsFile settings;
    const QString empty = settings.path(QStringLiteral("known_hosts"));
    ASSERT_TRUE(opsdeck::test::writeFile(empty, {}));
    ASSERT_TRUE(settings.write({QStringLiteral("config_file=%1").arg(sshd.sshConfig()),
                                QStringLiteral("known_hosts_file=%1").arg(empty)}));
    const CliRun refused = settings.runTrue({});
    EXPECT_EQ(refused.exitCode, 4) << refused.standardError.toStdString();
    EXPECT_TRUE(refused.standardError.contains(sshd.hostKeyFingerprint()))
        << refused.standardError.toStdString();
    const CliRun known = settings.runTrue({QStringLiteral("--known-hosts"), sshd.knownHosts()});
    EXPECT_EQ(known.exitCode, 0) << known.standardError.toStdString();
}

// Qt's INI reader splits an unquoted `a,b` into a list; the paths must come
// back whole, not empty (read in-process, with $XDG_CONFIG_HOME at the temp dir).
TEST(SshSettingsFile, ACommaInAPathIsKept)
{
    const SettingsFile settings;
    ASSERT_TRUE(settings.write({QStringLiteral("config_file=/tmp/ssh,config"),
                                QStringLiteral("known_hosts_file=/tmp/kh,x")}));
    const QByteArray old = qgetenv("XDG_CONFIG_HOME");
    const bool had = qEnvironmentVariableIsSet("XDG_CONFIG_HOME");
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(settings.path(QString())));
    const HostConnections::Options options = HostConnections::Options::fromQSettings();
    had ? qputenv("XDG_CONFIG_HOME", old) : qunsetenv("XDG_CONFIG_HOME");
    EXPECT_EQ(options.sshConfigFile, QStringLiteral("/tmp/ssh,config"));
    EXPECT_EQ(options.knownHostsFile, QStringLiteral("/tmp/kh,x"));
}
