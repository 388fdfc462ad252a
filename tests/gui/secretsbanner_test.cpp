// The plaintext-secrets warning in the window (issue 5: "a warning in the UI
// and the log"): switched on the way an operator does, in opsdeck.conf under
// a private XDG_CONFIG_HOME, the banner shows the file and how to switch it
// off; switched off, there is no banner. Storing a host's password through
// the secret path never touches the inventory file.
#include "apppaths.h"
#include "mainwindow.h"
#include "secretstore.h"
#include "testsupport.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using opsdeck::secrets::SecretStore;
using opsdeck::test::waitUntil;
using namespace std::chrono_literals;

namespace {

// A private config and data home for one test; restores the environment after.
class PrivateHome
{
public:
    PrivateHome()
        : m_config(qgetenv("XDG_CONFIG_HOME")), m_data(qgetenv("XDG_DATA_HOME")),
          m_hadConfig(qEnvironmentVariableIsSet("XDG_CONFIG_HOME")),
          m_hadData(qEnvironmentVariableIsSet("XDG_DATA_HOME"))
    {
        qputenv("XDG_CONFIG_HOME", m_dir.filePath(QStringLiteral("config")).toUtf8());
        qputenv("XDG_DATA_HOME", m_dir.filePath(QStringLiteral("data")).toUtf8());
    }
    ~PrivateHome()
    {
        m_hadConfig ? qputenv("XDG_CONFIG_HOME", m_config) : qunsetenv("XDG_CONFIG_HOME");
        m_hadData ? qputenv("XDG_DATA_HOME", m_data) : qunsetenv("XDG_DATA_HOME");
    }
    PrivateHome(const PrivateHome &) = delete;
    PrivateHome &operator=(const PrivateHome &) = delete;

    const QTemporaryDir &dir() const { return m_dir; }
    // What an operator writes into ~/.config/opsdeck/opsdeck.conf.
    void writeSettings(const QByteArray &secretsSection) const
    {
        ASSERT_TRUE(QDir().mkpath(m_dir.filePath(QStringLiteral("config/opsdeck"))));
        QFile file(m_dir.filePath(QStringLiteral("config/opsdeck/opsdeck.conf")));
        ASSERT_TRUE(file.open(QIODevice::WriteOnly));
        file.write("[secrets]\n" + secretsSection);
    }
    QString defaultSecretsFile() const
    {
        return m_dir.filePath(QStringLiteral("data/opsdeck/secrets.json"));
    }

private:
    QTemporaryDir m_dir;
    QByteArray m_config;
    QByteArray m_data;
    bool m_hadConfig;
    bool m_hadData;
};

// Unsets an environment variable for a scope; puts it back as it was.
class Unset
{
public:
    explicit Unset(const char *name)
        : m_name(name), m_was(qgetenv(name)), m_set(qEnvironmentVariableIsSet(name))
    {
        qunsetenv(name);
    }
    ~Unset()
    {
        if (m_set)
            qputenv(m_name, m_was);
    }
    Unset(const Unset &) = delete;
    Unset &operator=(const Unset &) = delete;

private:
    const char *m_name;
    QByteArray m_was;
    bool m_set;
};

QLabel *secretsBanner(const MainWindow &window)
{
    return window.findChild<QLabel *>(QStringLiteral("secretsBanner"));
}

QByteArray fileBytes(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

TEST(SecretsBanner, PlaintextFallbackShowsAWarningBannerWithThePathWhileSwitchedOn)
{
    PrivateHome home;
    ASSERT_TRUE(home.dir().isValid());
    home.writeSettings("plaintext_fallback=true\n");

    MainWindow window;
    window.show();
    QLabel *banner = secretsBanner(window);
    ASSERT_NE(banner, nullptr);
    ASSERT_TRUE(waitUntil([&] { return banner->isVisible(); }, 5s));
    const QString text = window.secretsBannerText();
    EXPECT_TRUE(text.contains(QStringLiteral("plaintext file"))) << text.toStdString();
    EXPECT_TRUE(text.contains(home.defaultSecretsFile())) << text.toStdString();
    // How to switch it off, and where.
    EXPECT_TRUE(text.contains(QStringLiteral("plaintext_fallback=false"))) << text.toStdString();
    EXPECT_TRUE(text.contains(opsdeck::settings::AppPaths::configFile())) << text.toStdString();
    // Tall enough for its wrapped lines: nothing is clipped.
    EXPECT_GE(banner->height(), banner->heightForWidth(banner->width()));
}

TEST(SecretsBanner, ABannerNamesTheFileGivenInTheSettings)
{
    PrivateHome home;
    ASSERT_TRUE(home.dir().isValid());
    const QString file = home.dir().filePath(QStringLiteral("elsewhere/my-secrets.json"));
    home.writeSettings("plaintext_fallback=true\nplaintext_file=" + file.toUtf8() + "\n");

    MainWindow window;
    window.show();
    EXPECT_TRUE(window.secretsBannerText().contains(file))
        << window.secretsBannerText().toStdString();
}

TEST(SecretsBanner, NoBannerWhilePlaintextFallbackIsOff)
{
    PrivateHome home;
    ASSERT_TRUE(home.dir().isValid());
    {
        // Switched on first, so the shared store is known to follow the file.
        home.writeSettings("plaintext_fallback=true\n");
        MainWindow on;
        ASSERT_FALSE(on.secretsBannerText().isEmpty());
    }
    home.writeSettings("plaintext_fallback=false\n");
    MainWindow window;
    window.show();
    QLabel *banner = secretsBanner(window);
    ASSERT_NE(banner, nullptr);
    EXPECT_FALSE(banner->isVisible());
    EXPECT_TRUE(window.secretsBannerText().isEmpty());
}

TEST(SecretsBanner, AFallbackWriteIsNamedInTheBannerAndNeverChangesTheInventory)
{
    PrivateHome home;
    ASSERT_TRUE(home.dir().isValid());
    home.writeSettings("plaintext_fallback=true\n");
    // No keychain in reach: the write goes to the plaintext file.
    const Unset bus("DBUS_SESSION_BUS_ADDRESS");
    const Unset display("DISPLAY");
    const QString inventory = opsdeck::test::writeInventory(
        home.dir(), QStringLiteral("hosts:\n"
                                   "  - {name: gpu-1, kind: ssh, address: 127.0.0.1, port: %1, "
                                   "user: ops}\n"
                                   "services:\n"
                                   "  - {name: decode, role: decode, host: gpu-1, "
                                   "url: 'http://127.0.0.1:%2'}\n")
                        .arg(opsdeck::test::freeTcpPort())
                        .arg(opsdeck::test::freeTcpPort()));
    const QByteArray before = fileBytes(inventory);
    ASSERT_FALSE(before.isEmpty());

    MainWindow window;
    window.setDataDir(home.dir().filePath(QStringLiteral("appdata")));
    ASSERT_TRUE(window.openInventory(inventory));
    window.show();
    const QByteArray password = "pw-" + QByteArray::number(QDateTime::currentMSecsSinceEpoch());
    const auto stored = SecretStore::shared().writeBlocking(
        SecretStore::sshKeyName(QStringLiteral("gpu-1"), QStringLiteral("ops")), password);
    ASSERT_TRUE(stored.ok()) << stored.error.toStdString();

    ASSERT_TRUE(waitUntil(
        [&] {
            return window.secretsBannerText().contains(QStringLiteral("ssh/gpu-1/ops was written"));
        },
        5s))
        << window.secretsBannerText().toStdString();
    EXPECT_FALSE(window.secretsBannerText().contains(QString::fromUtf8(password)));
    EXPECT_TRUE(QFile::exists(home.defaultSecretsFile()));
    // The inventory is the operator's file: byte for byte what it was.
    EXPECT_TRUE(fileBytes(inventory) == before);
    EXPECT_FALSE(fileBytes(inventory).contains(password));
    EXPECT_FALSE(fileBytes(inventory).contains(password.toBase64()));
}
