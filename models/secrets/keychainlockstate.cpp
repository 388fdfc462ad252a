#include "keychainlockstate.h"

#include <QDBusArgument>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusMetaType>
#include <QDBusObjectPath>
#include <QDBusVariant>

namespace opsdeck::secrets {

namespace {

// A property of the Secret Service object at `path`; invalid when there is
// no answer within 2 s.
QVariant property(QDBusConnection &bus, const QString &path, const QString &interface,
                  const QString &name)
{
    QDBusMessage ask = QDBusMessage::createMethodCall(
        QStringLiteral("org.freedesktop.secrets"), path,
        QStringLiteral("org.freedesktop.DBus.Properties"), QStringLiteral("Get"));
    ask << interface << name;
    const QDBusMessage answer = bus.call(ask, QDBus::Block, 2000);
    if (answer.type() != QDBusMessage::ReplyMessage || answer.arguments().isEmpty())
        return {};
    return answer.arguments().constFirst().value<QDBusVariant>().variant();
}

} // namespace

QString KeychainLockState::lockedReason()
{
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected())
        return {};
    // Every collection, not the default alias alone: a lookup searches them
    // all, and the alias may point at another (unlocked, empty) one.
    const QVariant listed =
        property(bus, QStringLiteral("/org/freedesktop/secrets"),
                 QStringLiteral("org.freedesktop.Secret.Service"), QStringLiteral("Collections"));
    QList<QDBusObjectPath> collections;
    if (listed.canConvert<QDBusArgument>())
        collections = qdbus_cast<QList<QDBusObjectPath>>(listed.value<QDBusArgument>());
    else
        collections = listed.value<QList<QDBusObjectPath>>();
    collections << QDBusObjectPath(QStringLiteral("/org/freedesktop/secrets/aliases/default"));
    for (const QDBusObjectPath &collection : collections) {
        const QString path = collection.path();
        if (!property(bus, path, QStringLiteral("org.freedesktop.Secret.Collection"),
                      QStringLiteral("Locked"))
                 .toBool())
            continue;
        return QStringLiteral("the keychain's collection %1 is locked: unlock it (log in to the "
                              "desktop, or `gnome-keyring-daemon --unlock`) and try again")
            .arg(path.section(QLatin1Char('/'), -1));
    }
    return {};
}

} // namespace opsdeck::secrets
