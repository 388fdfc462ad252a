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
#include "logdock.h"
#include "mainwindow.h"
#include "secretprompt.h"
#include "servicecard.h"
#include "servicespanel.h"
#include "servicestatusmodel.h"
#include "simprocess.h"
#include "sshdprocess.h"
#include "testsupport.h"
#include "testuser.h"

#include <QApplication>
#include <QFile>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
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

    bool start(bool unknownKey = true)
    {
        knownHosts = unknownKey ? dir.filePath(QStringLiteral("known_hosts")) : sshd.knownHosts();
        return sshd.start() && sim.start(test::simArgs(QStringLiteral("decode")));
    }

    /// Points the window's SSH at the test sshd's files only, then opens an
    /// inventory with one ssh host and one decode reached through it.
    bool open(MainWindow &window)
    {
        hosts::HostConnections::Options options;
        options.sshConfigFile = sshd.sshConfig();
        options.knownHostsFile = knownHosts;
        options.sshDirectory = sshd.sshDirectory();
        options.decorate = [key = sshd.clientKey()](remote::SshSettings &settings) {
            settings.identityFiles = {key};
            settings.useAgent = false;
        };
        window.setHostOptions(options);
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
            return window.session()->statusModel()->rowCount() == 1 &&
                   window.session()->statusModel()->status(0).state ==
                       probes::ServiceState::Healthy;
        },
        30s));
    const probes::ServiceStatus status = window.session()->statusModel()->status(0);
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

    // Refusals and answers are written on the auditor's own thread, in order.
    const QStringList expectedActions{QStringLiteral("refused-unknown"),
                                      QStringLiteral("accepted-by-operator"),
                                      QStringLiteral("accepted-new")};
    EXPECT_TRUE(waitUntil([&] { return f.auditActions() == expectedActions; }, 15s))
        << f.auditActions().join(u' ').toStdString();
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
    // Refusals and answers are written on the auditor's own thread, in order.
    const QStringList expectedActions{QStringLiteral("refused-unknown"),
                                      QStringLiteral("refused-by-operator")};
    EXPECT_TRUE(waitUntil([&] { return f.auditActions() == expectedActions; }, 15s))
        << f.auditActions().join(u' ').toStdString();
    EXPECT_TRUE(connectionCell(window).startsWith(QStringLiteral("failed: unknown host key")));
    EXPECT_FALSE(QFile::exists(f.knownHosts));
    // Polling through the refused host never reaches the decode, and the card
    // says why instead of calling it down.
    ASSERT_TRUE(waitUntil(
        [&] { return window.session()->statusModel()->status(0).lastCheck.isValid(); }, 15s));
    const probes::ServiceStatus status = window.session()->statusModel()->status(0);
    EXPECT_EQ(status.state, probes::ServiceState::Unknown);
    EXPECT_TRUE(status.detail.contains(QStringLiteral("not reached: tunnel via gpu-1 to ")))
        << status.detail.toStdString();
    EXPECT_LT(watchdog.worstStallMs(), 1000);
}

// Password-only sshd (PAM) as a throwaway user, nothing in the keychain: the
// window asks once with a hidden field, the answer logs in, and the password
// reaches neither the log nor the audit trail.
TEST(HostsTab, PasswordIsAskedInTheWindowWhenTheKeychainHasNone)
{
    test::TestUser user(test::TestUser::uniqueName(QStringLiteral("gui")));
    ASSERT_TRUE(user.create()) << user.errorText().toStdString();
    const QByteArray password = test::TestUser::randomPassword();
    ASSERT_TRUE(user.setPassword(password)) << user.errorText().toStdString();
    HostsFixture f;
    f.sshd.setLoginUser(user.name());
    f.sshd.setAuthentication(test::SshdProcess::Authentication::Password);
    ASSERT_TRUE(f.start(false)) << f.sshd.errorText().toStdString();
    test::GuiWatchdog watchdog;
    MainWindow window;
    QStringList questions;
    QObject::connect(
        window.secretPrompt(), &SecretPrompt::asking, &window, [&](const QString &question) {
            questions << question;
            // Answer once the dialog's own event loop runs.
            QTimer::singleShot(50, &window, [password] {
                auto *dialog = qobject_cast<QInputDialog *>(QApplication::activeModalWidget());
                if (!dialog)
                    return;
                EXPECT_EQ(dialog->textEchoMode(), QLineEdit::Password);
                dialog->setTextValue(QString::fromUtf8(password));
                dialog->accept();
            });
        });
    ASSERT_TRUE(f.open(window));
    window.show();
    ASSERT_TRUE(
        waitUntil([&] { return connectionCell(window) == QStringLiteral("connected"); }, 30s))
        << connectionCell(window).toStdString();
    ASSERT_EQ(questions.size(), 1);
    EXPECT_TRUE(questions[0].contains(user.name())) << questions[0].toStdString();
    EXPECT_FALSE(window.logDock()->text().contains(QString::fromUtf8(password)));
    QFile audit(history::AuditLog::pathIn(f.dir.path()));
    if (audit.open(QIODevice::ReadOnly)) {
        EXPECT_FALSE(audit.readAll().contains(password));
    }
    EXPECT_LT(watchdog.worstStallMs(), 1000);
}

// A reload while a password question is open must not deadlock: the old
// transports' threads are joined after their question is abandoned.
TEST(HostsTab, ReloadWhileAPasswordIsAskedDoesNotHang)
{
    test::TestUser user(test::TestUser::uniqueName(QStringLiteral("gur")));
    ASSERT_TRUE(user.create()) << user.errorText().toStdString();
    ASSERT_TRUE(user.setPassword(test::TestUser::randomPassword()))
        << user.errorText().toStdString();
    HostsFixture f;
    f.sshd.setLoginUser(user.name());
    f.sshd.setAuthentication(test::SshdProcess::Authentication::Password);
    ASSERT_TRUE(f.start(false)) << f.sshd.errorText().toStdString();
    MainWindow window;
    int asked = 0;
    bool reloaded = false;
    QObject::connect(window.secretPrompt(), &SecretPrompt::asking, &window, [&] {
        // The dialog runs its own event loop: answer from a timer inside it.
        if (++asked > 1) {
            QTimer::singleShot(50, &window, [] {
                if (auto *dialog = qobject_cast<QInputDialog *>(QApplication::activeModalWidget()))
                    dialog->reject();
            });
            return;
        }
        // While the first question is open, open the inventory again.
        QTimer::singleShot(50, &window, [&] {
            reloaded = window.openInventory(f.dir.filePath(QStringLiteral("inventory.yaml")));
            if (auto *dialog = qobject_cast<QInputDialog *>(QApplication::activeModalWidget()))
                dialog->reject();
        });
    });
    ASSERT_TRUE(f.open(window));
    window.show();
    ASSERT_TRUE(waitUntil([&] { return reloaded; }, 30s));
    // The new transport asks again (a fresh question), is refused, and fails.
    ASSERT_TRUE(
        waitUntil([&] { return connectionCell(window).startsWith(QStringLiteral("failed")); }, 30s))
        << connectionCell(window).toStdString();
    EXPECT_GE(asked, 1);
}

// Closing the dialog without an answer (Escape, the window closing) is not an
// operator's refusal: only the refused connect is in the audit log.
TEST(HostsTab, DialogClosedWithoutAnAnswerIsNotAuditedAsRefused)
{
    HostsFixture f;
    ASSERT_TRUE(f.start()) << f.sshd.errorText().toStdString() << f.sim.errorText().toStdString();
    MainWindow window;
    ASSERT_TRUE(f.open(window));
    window.show();
    ASSERT_TRUE(waitUntil([&] { return window.hostsTab()->hostKeyDialog() != nullptr; }, 20s));
    window.hostsTab()->hostKeyDialog()->reject();
    ASSERT_TRUE(waitUntil([&] { return window.hostsTab()->hostKeyDialog() == nullptr; }, 5s));
    // Refusals and answers are written on the auditor's own thread, in order.
    const QStringList expectedActions{QStringLiteral("refused-unknown")};
    EXPECT_TRUE(waitUntil([&] { return f.auditActions() == expectedActions; }, 15s))
        << f.auditActions().join(u' ').toStdString();
    EXPECT_FALSE(QFile::exists(f.knownHosts));
}
