// DesktopNotifier on a private dbus-daemon: a notification server registered
// by the test receives Notify with the alert's title and text; without a
// server, or without a bus, the notifier warns once and carries on.
#include "desktopnotifier.h"
#include "testsupport.h"

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace opsdeck::alerts;
using namespace std::chrono_literals;
using opsdeck::inventory::AlertKind;
using opsdeck::test::waitUntil;

namespace {

/// The server side of the Desktop Notifications Specification, recording calls.
class NotificationServer : public QObject
{
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.Notifications")
public:
    struct Call
    {
        QString appName;
        uint replacesId = 0;
        QString summary;
        QString body;
        int urgency = -1;
    };
    QVector<Call> calls;

public Q_SLOTS:
    uint Notify(const QString &appName, uint replacesId, const QString &, const QString &summary,
                const QString &body, const QStringList &, const QVariantMap &hints, int)
    {
        calls.append({appName, replacesId, summary, body,
                      hints.value(QStringLiteral("urgency"), -1).toInt()});
        return 41 + static_cast<uint>(calls.size());
    }
};

/// A private bus: a dbus-daemon on a socket in a temporary folder, with no
/// service activation (nothing on the machine can answer in the test's place).
class PrivateBus
{
public:
    PrivateBus()
    {
        const QString config = m_dir.filePath(QStringLiteral("bus.conf"));
        QFile file(config);
        if (!file.open(QIODevice::WriteOnly))
            return;
        file.write(
            QStringLiteral(
                R"(<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=%1</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
)")
                .arg(m_dir.path())
                .toUtf8());
        file.close();
        m_daemon.start(QStringLiteral("dbus-daemon"),
                       {QStringLiteral("--config-file=") + config, QStringLiteral("--nofork"),
                        QStringLiteral("--print-address")});
        waitUntil(
            [&] {
                m_output += m_daemon.readAllStandardOutput();
                return m_output.contains('\n') || m_daemon.state() == QProcess::NotRunning;
            },
            10s);
        m_address = QString::fromUtf8(m_output.left(m_output.indexOf('\n')).trimmed());
    }
    ~PrivateBus()
    {
        for (const QString &name : m_connections)
            QDBusConnection::disconnectFromBus(name);
        m_daemon.terminate();
        if (!m_daemon.waitForFinished(5000))
            m_daemon.kill();
        m_daemon.waitForFinished(5000);
    }
    QString address() const { return m_address; }
    QDBusConnection connect(const QString &name)
    {
        m_connections.append(name);
        return QDBusConnection::connectToBus(m_address, name);
    }

private:
    QTemporaryDir m_dir;
    QProcess m_daemon;
    QByteArray m_output;
    QString m_address;
    QStringList m_connections;
};

Alert stuck()
{
    return Alert{AlertKind::SchedulerStuck, QStringLiteral("decode"), 1000, 61000,
                 QStringLiteral("decode: 3 requests waiting and none running for 60 s; the "
                                "scheduler admits nothing")};
}

} // namespace

TEST(DesktopNotifier, NotifyCarriesTheAlertsTitleAndTextAndResolveReplacesIt)
{
    PrivateBus bus;
    ASSERT_FALSE(bus.address().isEmpty()) << "dbus-daemon printed no address";
    QDBusConnection receiver = bus.connect(QStringLiteral("receiver"));
    ASSERT_TRUE(receiver.isConnected()) << receiver.lastError().message().toStdString();
    NotificationServer server;
    ASSERT_TRUE(receiver.registerObject(QStringLiteral("/org/freedesktop/Notifications"), &server,
                                        QDBusConnection::ExportAllSlots));
    ASSERT_TRUE(receiver.registerService(QStringLiteral("org.freedesktop.Notifications")));

    DesktopNotifier notifier(bus.connect(QStringLiteral("notifier")));
    QSignalSpy notified(&notifier, &DesktopNotifier::notified);
    QSignalSpy unavailable(&notifier, &DesktopNotifier::unavailable);
    notifier.notify(stuck());
    ASSERT_TRUE(waitUntil([&] { return notified.count() == 1; }, 10s));
    ASSERT_EQ(server.calls.size(), 1);
    EXPECT_EQ(server.calls[0].appName, QStringLiteral("OpsDeck"));
    EXPECT_EQ(server.calls[0].summary, QStringLiteral("Scheduler stuck: decode"));
    EXPECT_EQ(server.calls[0].body, stuck().text);
    EXPECT_EQ(server.calls[0].urgency, 2) << "critical";
    EXPECT_EQ(server.calls[0].replacesId, 0u);
    EXPECT_EQ(notified.at(0).at(0).toString(), QStringLiteral("scheduler_stuck:decode"));
    EXPECT_EQ(notified.at(0).at(1).toUInt(), 42u);

    Alert cleared = stuck();
    cleared.text = QStringLiteral("decode: the scheduler runs again (2 running, 0 waiting)");
    notifier.resolve(cleared);
    ASSERT_TRUE(waitUntil([&] { return notified.count() == 2; }, 10s));
    ASSERT_EQ(server.calls.size(), 2);
    EXPECT_EQ(server.calls[1].summary, QStringLiteral("Resolved: Scheduler stuck: decode"));
    EXPECT_EQ(server.calls[1].body, cleared.text);
    EXPECT_EQ(server.calls[1].replacesId, 42u) << "replaces the alert's own notification";
    EXPECT_EQ(server.calls[1].urgency, 1);
    EXPECT_EQ(unavailable.count(), 0);
    EXPECT_TRUE(notifier.problem().isEmpty());
}

TEST(DesktopNotifier, WithoutANotificationServerItWarnsOnceAndKeepsTrying)
{
    PrivateBus bus;
    ASSERT_FALSE(bus.address().isEmpty()) << "dbus-daemon printed no address";
    DesktopNotifier notifier(bus.connect(QStringLiteral("notifier")));
    QSignalSpy notified(&notifier, &DesktopNotifier::notified);
    QSignalSpy unavailable(&notifier, &DesktopNotifier::unavailable);
    notifier.notify(stuck());
    notifier.notify(stuck());
    ASSERT_TRUE(waitUntil([&] { return unavailable.count() == 1; }, 10s));
    EXPECT_EQ(notifier.problem(),
              QStringLiteral("no notification server on the D-Bus session bus"));

    // A server that starts later gets the next alert; replies arrive in order,
    // so by then the second failure has been seen too, and stayed quiet.
    QDBusConnection receiver = bus.connect(QStringLiteral("receiver"));
    NotificationServer server;
    ASSERT_TRUE(receiver.registerObject(QStringLiteral("/org/freedesktop/Notifications"), &server,
                                        QDBusConnection::ExportAllSlots));
    ASSERT_TRUE(receiver.registerService(QStringLiteral("org.freedesktop.Notifications")));
    notifier.notify(stuck());
    ASSERT_TRUE(waitUntil([&] { return notified.count() == 1; }, 10s));
    EXPECT_EQ(server.calls.size(), 1);
    EXPECT_EQ(unavailable.count(), 1) << "one warning, not one per call";
}

TEST(DesktopNotifier, WithoutABusItWarnsOnceAtOnce)
{
    const QByteArray saved = qgetenv("DBUS_SESSION_BUS_ADDRESS");
    qunsetenv("DBUS_SESSION_BUS_ADDRESS");
    DesktopNotifier notifier;
    QSignalSpy unavailable(&notifier, &DesktopNotifier::unavailable);
    notifier.notify(stuck());
    notifier.resolve(stuck());
    if (!saved.isNull())
        qputenv("DBUS_SESSION_BUS_ADDRESS", saved);
    ASSERT_EQ(unavailable.count(), 1) << "decided without waiting on anything";
    EXPECT_TRUE(notifier.problem().startsWith(QStringLiteral("no D-Bus session bus")))
        << notifier.problem().toStdString();
}

#include "desktopnotifier_test.moc"
