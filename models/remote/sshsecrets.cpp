#include "sshsecrets.h"

#include "secretstore.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QSet>
#include <QUrl>
#include <memory>
#include <mutex>
#include <spdlog/spdlog.h>

namespace opsdeck::remote {

namespace {

using secrets::SecretResult;
using secrets::SecretStore;

// Shared by the callbacks of one install(): the keys already asked for.
struct Asked
{
    std::mutex mutex;
    QSet<QString> keys;
    bool firstTime(const QString &key)
    {
        const std::lock_guard lock(mutex);
        if (keys.contains(key))
            return false;
        keys.insert(key);
        return true;
    }
};

std::optional<QByteArray> lookUp(SecretStore *store, const std::shared_ptr<Asked> &asked,
                                 const SshSecrets::Prompt &prompt, const QString &key,
                                 const QString &question)
{
    SecretStore &keychain = store ? *store : SecretStore::shared();
    SecretResult found = keychain.readBlocking(key, SshSecrets::keychainDeadline);
    if (found.ok()) {
        std::optional<QByteArray> secret(std::move(found.value));
        SecretStore::wipe(found.value);
        return secret;
    }
    if (found.status != SecretResult::Status::NotFound)
        spdlog::warn("ssh: no secret from the keychain for {}: {}", key.toStdString(),
                     found.error.toStdString());
    if (!prompt || !asked->firstTime(key))
        return std::nullopt;
    return prompt(question);
}

} // namespace

QString SshSecrets::passwordKey(const QString &host, const QString &user)
{
    return SecretStore::sshKeyName(host, user);
}

QString SshSecrets::passphraseKey(const QString &keyFile)
{
    const QString absolute = QFileInfo(keyFile).absoluteFilePath();
    // SecretStore keys are printable ASCII without spaces (keyProblem()).
    const QString key = QStringLiteral("ssh/key/") +
                        QString::fromLatin1(QUrl::toPercentEncoding(absolute, "/~._-+=@:,"));
    if (SecretStore::keyProblem(key).isEmpty())
        return key;
    return QStringLiteral("ssh/key/sha256:") +
           QString::fromLatin1(
               QCryptographicHash::hash(absolute.toUtf8(), QCryptographicHash::Sha256).toHex());
}

void SshSecrets::install(SshSettings &settings, Prompt prompt, secrets::SecretStore *store)
{
    auto asked = std::make_shared<Asked>();
    settings.password = [store, asked, prompt](const QString &host, const QString &user) {
        return lookUp(store, asked, prompt, passwordKey(host, user),
                      QStringLiteral("Password for %1@%2: ").arg(user, host));
    };
    settings.passphrase = [store, asked, prompt](const QString &keyFile) {
        return lookUp(store, asked, prompt, passphraseKey(keyFile),
                      QStringLiteral("Passphrase for key %1: ").arg(keyFile));
    };
}

} // namespace opsdeck::remote
