#include "desktopnotifier.h"

#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <spdlog/spdlog.h>

using namespace Qt::StringLiterals;

namespace opsdeck::alerts {

namespace {

// Desktop Notifications Specification: urgency hint is a byte, 1 normal, 2 critical.
constexpr uchar urgencyNormal = 1;
constexpr uchar urgencyCritical = 2;
constexpr int callTimeoutMs = 5000;

QDBusConnection sessionBusIfNamed()
{
    // QDBusConnection::sessionBus() without the variable lets libdbus try an
    // X11 autolaunch (spawning dbus-launch); a console must not start daemons.
    if (qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS"))
        return QDBusConnection(u"opsdeck-no-session-bus"_s);
    return QDBusConnection::sessionBus();
}

} // namespace

DesktopNotifier::DesktopNotifier(QObject *parent) : DesktopNotifier(sessionBusIfNamed(), parent) {}

DesktopNotifier::DesktopNotifier(const QDBusConnection &bus, QObject *parent)
    : QObject(parent), m_bus(bus)
{
    qRegisterMetaType<Alert>();
}

void DesktopNotifier::notify(const Alert &alert)
{
    send(alert.key(), alert.title(), alert.text, urgencyCritical, m_ids.value(alert.key()));
}

void DesktopNotifier::resolve(const Alert &alert)
{
    send(alert.key(), u"Resolved: "_s + alert.title(), alert.text, urgencyNormal,
         m_ids.value(alert.key()));
}

void DesktopNotifier::send(const QString &key, const QString &summary, const QString &body,
                           uchar urgency, uint replacesId)
{
    if (!m_bus.isConnected()) {
        const QDBusError error = m_bus.lastError();
        failed(u"no D-Bus session bus: "_s +
               (error.isValid() ? error.message()
                                : u"DBUS_SESSION_BUS_ADDRESS is not set or names no bus"_s));
        return;
    }
    QDBusMessage call = QDBusMessage::createMethodCall(
        u"org.freedesktop.Notifications"_s, u"/org/freedesktop/Notifications"_s,
        u"org.freedesktop.Notifications"_s, u"Notify"_s);
    const QVariantMap hints{{u"urgency"_s, QVariant::fromValue(urgency)}};
    call << u"OpsDeck"_s << replacesId << u"dialog-warning"_s << summary << body << QStringList()
         << hints << -1;
    auto *watcher = new QDBusPendingCallWatcher(m_bus.asyncCall(call, callTimeoutMs), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this,
            [this, key](QDBusPendingCallWatcher *finished) {
                finished->deleteLater();
                const QDBusPendingReply<uint> reply = *finished;
                if (reply.isError()) {
                    const QDBusError error = reply.error();
                    failed(error.type() == QDBusError::ServiceUnknown
                               ? u"no notification server on the D-Bus session bus"_s
                               : u"the notification server refused: "_s + error.message());
                    return;
                }
                m_ids.insert(key, reply.value());
                Q_EMIT notified(key, reply.value());
            });
}

void DesktopNotifier::failed(const QString &reason)
{
    if (m_warned)
        return;
    m_warned = true;
    m_problem = reason;
    spdlog::warn("desktop notifications are off: {}", reason.toStdString());
    Q_EMIT unavailable(reason);
}

} // namespace opsdeck::alerts
