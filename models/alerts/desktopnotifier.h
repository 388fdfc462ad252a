#pragma once

#include "alert.h"

#include <QDBusConnection>
#include <QHash>
#include <QObject>

namespace opsdeck::alerts {

/// Shows alerts as desktop notifications through the freedesktop.org
/// notification service (org.freedesktop.Notifications.Notify on the D-Bus
/// session bus; Desktop Notifications Specification 1.2): a raised alert as
/// a critical notification titled Alert::title() with Alert::text as body;
/// its clearing replaces it with a normal "Resolved: ..." one.
///
/// Never a failure and never a wait: calls are asynchronous; with no session
/// bus or no notification server, the first failed call logs one warning,
/// sets problem() and emits unavailable() once; later calls keep trying
/// quietly (a server may start later).
///
/// Thread: the thread it lives in (the GUI thread); D-Bus replies arrive as events.
class DesktopNotifier : public QObject
{
    Q_OBJECT
public:
    /// Uses the session bus named by DBUS_SESSION_BUS_ADDRESS; without that
    /// variable it never connects (no autolaunch of a bus).
    explicit DesktopNotifier(QObject *parent = nullptr);
    /// Uses `bus` (tests pass a connection to a private dbus-daemon).
    explicit DesktopNotifier(const QDBusConnection &bus, QObject *parent = nullptr);

    /// Why notifications do not show, in words; empty while none failed.
    QString problem() const { return m_problem; }

public Q_SLOTS:
    void notify(const opsdeck::alerts::Alert &alert);
    void resolve(const opsdeck::alerts::Alert &alert);

Q_SIGNALS:
    /// The server accepted a notification and gave it `id`.
    void notified(const QString &alertKey, uint id);
    /// Emitted once, with the reason, the first time a call fails.
    void unavailable(const QString &reason);

private:
    void send(const QString &key, const QString &summary, const QString &body, uchar urgency,
              uint replacesId);
    void failed(const QString &reason);

    QDBusConnection m_bus;
    QString m_problem;
    bool m_warned = false;
    QHash<QString, uint> m_ids; ///< alert key -> notification id, to replace it on resolve
};

} // namespace opsdeck::alerts
