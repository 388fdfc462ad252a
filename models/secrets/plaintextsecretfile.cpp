#include "plaintextsecretfile.h"

#include "privatefiles.h"
#include "privatelock.h"
#include "secretstore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

using namespace Qt::StringLiterals;

namespace opsdeck::secrets {

namespace {

using Status = SecretResult::Status;

SecretResult failure(const QString &error)
{
    return {Status::Failed, {}, error};
}

SecretResult notFound(const QString &key)
{
    return {Status::NotFound, {}, u"%1 is not in the secrets file"_s.arg(key)};
}

// Reads the whole map; a missing file is an empty map.
bool load(const QString &path, QJsonObject &map, QString &error)
{
    QFile file(path);
    // A link is not followed, a file readable by others is tightened first.
    if (!settings::PrivateFiles::tighten(path, &error))
        return false;
    if (!file.exists())
        return true;
    if (!file.open(QIODevice::ReadOnly)) {
        error = u"cannot open the secrets file %1: %2"_s.arg(path, file.errorString());
        return false;
    }
    QByteArray text = file.readAll();
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(text, &parseError);
    SecretStore::wipe(text);
    if (!document.isObject()) {
        error =
            u"the secrets file %1 is not a JSON object (%2)"_s.arg(path, parseError.errorString());
        return false;
    }
    map = document.object();
    return true;
}

bool save(const QString &path, const QJsonObject &map, QString &error)
{
    // QSaveFile writes into the file a link names: a planted link is refused.
    if (!settings::PrivateFiles::makeDir(QFileInfo(path).absolutePath(), &error) ||
        !settings::PrivateFiles::refuseLink(path, &error))
        return false;
    QSaveFile file(path);
    // The temp file gets these permissions before a byte is written.
    if (!file.open(QIODevice::WriteOnly) ||
        !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)) {
        error = u"cannot write the secrets file %1: %2"_s.arg(path, file.errorString());
        return false;
    }
    QByteArray text = QJsonDocument(map).toJson(QJsonDocument::Compact);
    file.write(text);
    SecretStore::wipe(text);
    if (!file.commit()) {
        error = u"cannot write the secrets file %1: %2"_s.arg(path, file.errorString());
        return false;
    }
    return true;
}

// Two processes changing the file at once would each write back the map they
// read, and one change would be lost: a change holds the lock beside it.
// Another holder keeps it only for one read and write.
bool lock(const QString &path, settings::PrivateLock &held, QString &error)
{
    if (!settings::PrivateFiles::makeDir(QFileInfo(path).absolutePath(), &error))
        return false;
    QString why;
    if (held.take(10000, &why))
        return true;
    error = u"the secrets file %1: %2; nothing changed"_s.arg(path, why);
    return false;
}

} // namespace

PlaintextSecretFile::PlaintextSecretFile(QString path) : m_path(std::move(path)) {}

SecretResult PlaintextSecretFile::read(const QString &key) const
{
    QJsonObject map;
    QString error;
    if (!load(m_path, map, error))
        return failure(error);
    if (!map.contains(key))
        return notFound(key);
    return {Status::Ok, QByteArray::fromBase64(map.value(key).toString().toLatin1()), {}};
}

SecretResult PlaintextSecretFile::write(const QString &key, const QByteArray &value)
{
    QJsonObject map;
    QString error;
    settings::PrivateLock held(m_path + u".lock"_s);
    if (!lock(m_path, held, error) || !load(m_path, map, error))
        return failure(error);
    map.insert(key, QString::fromLatin1(value.toBase64()));
    if (!save(m_path, map, error))
        return failure(error);
    return {Status::Ok, {}, {}};
}

SecretResult PlaintextSecretFile::remove(const QString &key)
{
    QJsonObject map;
    QString error;
    settings::PrivateLock held(m_path + u".lock"_s);
    if (!lock(m_path, held, error) || !load(m_path, map, error))
        return failure(error);
    if (!map.contains(key))
        return notFound(key);
    map.remove(key);
    if (!save(m_path, map, error))
        return failure(error);
    return {Status::Ok, {}, {}};
}

} // namespace opsdeck::secrets
