#include "keychainlockstate.h"

#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusVariant>

namespace opsdeck::secrets {

QString KeychainLockState::lockedReason()
{
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected())
        return {};
    QDBusMessage ask = QDBusMessage::createMethodCall(
        QStringLiteral("org.freedesktop.secrets"),
        QStringLiteral("/org/freedesktop/secrets/aliases/default"),
        QStringLiteral("org.freedesktop.DBus.Properties"), QStringLiteral("Get"));
    ask << QStringLiteral("org.freedesktop.Secret.Collection") << QStringLiteral("Locked");
    const QDBusMessage answer = bus.call(ask, QDBus::Block, 2000);
    if (answer.type() != QDBusMessage::ReplyMessage || answer.arguments().isEmpty())
        return {};
    const QVariant locked = answer.arguments().constFirst().value<QDBusVariant>().variant();
    if (!locked.toBool())
        return {};
    return QStringLiteral("the keychain's default collection is locked: unlock it (log in to the "
                          "desktop, or `gnome-keyring-daemon --unlock`) and try again");
}

} // namespace opsdeck::secrets
