#pragma once

#include <QByteArray>
#include <QMetaType>
#include <QString>

namespace opsdeck::secrets {

/// The outcome of one SecretStore operation. Plain data; copied across
/// threads by queued signals. `value` holds the secret only for a successful
/// read: whoever receives it wipes it (SecretStore::wipe) once used.
struct SecretResult
{
    enum class Status
    {
        Ok,       ///< done; for a read, `value` holds the secret
        NotFound, ///< no secret under that key (read, remove)
        Failed,   ///< the keychain refused or is unavailable; `error` says why
        TimedOut  ///< no answer before the deadline of a blocking call
    };

    Status status = Status::Failed;
    QByteArray value; ///< the secret (reads only); never logged, never printed
    QString error;    ///< why it failed, in words for the operator; never contains the value

    bool ok() const { return status == Status::Ok; }
};

} // namespace opsdeck::secrets

Q_DECLARE_METATYPE(opsdeck::secrets::SecretResult)
