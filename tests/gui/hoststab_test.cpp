// The Hosts tab in the window against a real sshd and opsdeck-sim on
// loopback: an unknown host key opens the dialog with its SHA256
// fingerprint; accepting saves it, the host shows "connected", the
// `via:` service turns healthy through its tunnel with "tunnelled via"
// on its card, and every answer is in the audit log. Refusing leaves the
// host failed. A watchdog fails a test whose GUI thread stalls over 1 s.
#include "auditlog.h"
#include "guiwatchdog.h"
#include "hostconnections.h"
#include "hostkeydialog.h"
#include "hoststab.h"
#include "hoststable.h"
#include "mainwindow.h"
#include "servicecard.h"
#include "servicespanel.h"
#include "servicestatusmodel.h"
#include "simprocess.h"
#include "sshdprocess.h"
#include "testsupport.h"

#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace opsdeck;
using namespace std::chrono_literals;
using opsdeck::test::waitUntil;

namespace {

struct HostsFixture
{
    test::SshdProcess sshd;
    test::SimProcess sim;
    QTemporaryDir dir;
    QString knownHosts;

    bool start()
    {
        knownHosts = dir.filePath(QStringLiteral("known_hosts"));
        return sshd.start() && sim.start(test::simArgs(QStringLiteral("decode")));
    }

    /// Points the window's SSH at the test sshd's files only, then opens an
    /// inventory with one ssh host and one decode reached through it.
    bool open(MainWindow &window)
    {
        workflows::HostConnections::Options options;
        options.sshConfigFile = sshd.sshConfig();
        options.knownHostsFile = knownHosts;
        options.sshDirectory = sshd.sshDirectory();
        options.decorate = [key = sshd.clientKey()](remote::SshSettings &settings) {
            settings.identityFiles = {key};
            settings.useAgent = false;
        };
        window.hostConnections()->setOptions(options);
        window.setDataDir(dir.path());
        const QString path = dir.filePath(QStringLiteral("inventory.yaml"));
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            return false;
        file.write(QStringLiteral("hosts:\n"
                                  "  - name: gpu-1\n"
                                  "    kind: ssh\n"
                                  "    address: 127.0.0.1\n"
                                  "    port: %1\n"
                                  "    user: %2\n"
                                  "services:\n"
                                  "  - name: decode\n"
                                  "    role: decode\n"
                                  "    host: gpu-1\n"
                                  "    via: gpu-1\n"
                                  "    url: http://127.0.0.1:%3\n")
                       .arg(sshd.port())
                       .arg(sshd.loginUser())
                       .arg(sim.port())
                       .toUtf8());
        file.close();
        return window.openInventory(path);
    }

    QStringList auditActions() const
    {
        QStringList actions;
        for (const auto &entry : history::AuditLog(history::AuditLog::pathIn(dir.path())).read())
            actions << entry.action;
        return actions;
    }
};

QString connectionCell(MainWindow &window)
{
    HostsTable *table = window.hostsTab()->table();
    return table->rowCount() > 0 && table->item(0, 2) ? table->item(0, 2)->text() : QString();
}

} // namespace

TEST(HostsTab, UnknownKeyAcceptedInTheDialogConnectsAndTunnels)
{
    HostsFixture f;
    ASSERT_TRUE(f.start()) << f.sshd.errorText().toStdString() << f.sim.errorText().toStdString();
    test::GuiWatchdog watchdog;
    MainWindow window;
    ASSERT_TRUE(f.open(window));
    window.show();
    window.tabs()->setCurrentWidget(window.hostsTab());

    ASSERT_TRUE(waitUntil([&] { return window.hostsTab()->hostKeyDialog() != nullptr; }, 20s));
    HostKeyDialog *dialog = window.hostsTab()->hostKeyDialog();
    EXPECT_EQ(dialog->host(), QStringLiteral("gpu-1"));
    EXPECT_EQ(dialog->fingerprint(), f.sshd.hostKeyFingerprint());
    const auto *shown = dialog->findChild<QLabel *>(QStringLiteral("fingerprint"));
    ASSERT_NE(shown, nullptr);
    EXPECT_TRUE(shown->text().contains(f.sshd.hostKeyFingerprint()));
    EXPECT_TRUE(shown->text().contains(QStringLiteral("ssh-ed25519")));
    EXPECT_TRUE(dialog->refuseButton()->isDefault()) << "Enter must not trust a key";
    EXPECT_TRUE(connectionCell(window).startsWith(QStringLiteral("failed: unknown host key")))
        << connectionCell(window).toStdString();
    EXPECT_FALSE(QFile::exists(f.knownHosts));
    if (const QByteArray png = qgetenv("OPSDECK_HOSTKEY_PNG"); !png.isEmpty())
        dialog->grab().save(QString::fromLocal8Bit(png));

    dialog->acceptButton()->click();
    ASSERT_TRUE(
        waitUntil([&] { return connectionCell(window) == QStringLiteral("connected"); }, 20s))
        << connectionCell(window).toStdString();
    QFile saved(f.knownHosts);
    ASSERT_TRUE(saved.open(QIODevice::ReadOnly));
    EXPECT_TRUE(saved.readAll().contains(f.sshd.hostEntry().toUtf8()));

    // The decode is polled through the tunnel, and its card says so.
    ASSERT_TRUE(waitUntil(
        [&] {
            return window.statusModel()->rowCount() == 1 &&
                   window.statusModel()->status(0).state == probes::ServiceState::Healthy;
        },
        30s));
    const probes::ServiceStatus status = window.statusModel()->status(0);
    EXPECT_EQ(status.via, QStringLiteral("gpu-1"));
    EXPECT_NE(status.tunnelUrl.port(), f.sim.port());
    ServiceCard *card = window.servicesPanel()->card(0);
    ASSERT_NE(card, nullptr);
    bool tunnelShown = false;
    for (const QLabel *label : card->findChildren<QLabel *>())
        tunnelShown |= label->text().contains(QStringLiteral("tunnelled via gpu-1"));
    EXPECT_TRUE(tunnelShown);
    if (const QByteArray png = qgetenv("OPSDECK_HOSTS_PNG"); !png.isEmpty())
        window.grab().save(QString::fromLocal8Bit(png));

    EXPECT_EQ(f.auditActions(), (QStringList{QStringLiteral("refused-unknown"),
                                             QStringLiteral("accepted-by-operator"),
                                             QStringLiteral("accepted-new")}));
    EXPECT_LT(watchdog.worstStallMs(), 1000);
}

TEST(HostsTab, RefusedKeyLeavesTheHostFailedAndIsAudited)
{
    HostsFixture f;
    ASSERT_TRUE(f.start()) << f.sshd.errorText().toStdString() << f.sim.errorText().toStdString();
    test::GuiWatchdog watchdog;
    MainWindow window;
    ASSERT_TRUE(f.open(window));
    window.show();
    ASSERT_TRUE(waitUntil([&] { return window.hostsTab()->hostKeyDialog() != nullptr; }, 20s));
    window.hostsTab()->hostKeyDialog()->refuseButton()->click();
    ASSERT_TRUE(waitUntil([&] { return window.hostsTab()->hostKeyDialog() == nullptr; }, 5s));
    EXPECT_EQ(f.auditActions(), (QStringList{QStringLiteral("refused-unknown"),
                                             QStringLiteral("refused-by-operator")}));
    EXPECT_TRUE(connectionCell(window).startsWith(QStringLiteral("failed: unknown host key")));
    EXPECT_FALSE(QFile::exists(f.knownHosts));
    // Polling through the refused host never reaches the decode.
    EXPECT_NE(window.statusModel()->status(0).state, probes::ServiceState::Healthy);
    EXPECT_LT(watchdog.worstStallMs(), 1000);
}
