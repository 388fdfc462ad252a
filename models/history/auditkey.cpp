#include "auditkey.h"

#include "apppaths.h"
#include "secretstore.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QRandomGenerator>

namespace opsdeck::history {

QString AuditKey::secretName(const QString &logPath)
{
    const QFileInfo info(logPath);
    const QString dir = QFileInfo(info.absolutePath()).canonicalFilePath();
    const QString file = (dir.isEmpty() ? info.absolutePath() : dir) + u'/' + info.fileName();
    return QStringLiteral("audit/chain-key/") +
           QString::fromLatin1(QCryptographicHash::hash(file.toUtf8(), QCryptographicHash::Sha256)
                                   .toHex()
                                   .left(16));
}

AuditLog::KeySource AuditKey::fromSecretStore()
{
    return [](const QString &logPath, bool create) {
        using secrets::SecretResult;
        using State = AuditLog::ChainKey::State;
        constexpr std::chrono::seconds deadline(5);
        secrets::SecretStore &store = secrets::SecretStore::shared();
        const QString name = secretName(logPath);
        SecretResult read = store.readBlocking(name, deadline);
        if (read.ok() && read.value.size() >= 32)
            return AuditLog::ChainKey{State::Key, read.value, {}};
        if (!read.ok() && read.status != SecretResult::Status::NotFound)
            return AuditLog::ChainKey{
                State::Unavailable,
                {},
                QStringLiteral("no secret store answered: %1").arg(read.error)};
        if (!create)
            return AuditLog::ChainKey{State::None, {}, {}};
        QByteArray key(32, '\0');
        QRandomGenerator::system()->fillRange(reinterpret_cast<quint32 *>(key.data()),
                                              key.size() / 4);
        const SecretResult written = store.writeBlocking(name, key, deadline);
        if (!written.ok())
            return AuditLog::ChainKey{
                State::Unavailable,
                {},
                QStringLiteral("the key could not be kept: %1").arg(written.error)};
        return AuditLog::ChainKey{State::Key, key, {}};
    };
}

std::shared_ptr<AuditLog> AuditKey::inDataDir(const QString &dataDir)
{
    return std::make_shared<AuditLog>(AuditLog::pathIn(settings::AppPaths::dataDir(dataDir)),
                                      fromSecretStore());
}

} // namespace opsdeck::history
