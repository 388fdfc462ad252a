#include "secretstore.h"

#include "apppaths.h"
#include "keychainlockstate.h"
#include "plaintextsecretfile.h"
#include "secretbytes.h"
#include "settingsvalues.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QSettings>
#include <QStandardPaths>
#include <QThread>
#include <QTimer>
#include <memory>
#include <mutex>
#include <qt6keychain/keychain.h>
#include <spdlog/spdlog.h>
#include <string.h> // explicit_bzero

using namespace Qt::StringLiterals;

namespace opsdeck::secrets {

namespace {

using Status = SecretResult::Status;

QString operationWord(bool read, bool write)
{
    return read ? u"read"_s : write ? u"write"_s : u"delete"_s;
}

// Only these mean "there is no keychain here"; a refusal (access denied) is
// an answer and must not send the secret to a file instead.
bool keychainMissing(QKeychain::Error error)
{
    return error == QKeychain::NoBackendAvailable || error == QKeychain::NotImplemented ||
           error == QKeychain::OtherError;
}

} // namespace

SecretStore::Settings SecretStore::Settings::fromQSettings()
{
    QSettings conf(settings::AppPaths::configFile(), QSettings::IniFormat);
    Settings result;
    // Strict: a typo or "no" must not store secrets in a file (settingsvalues.h).
    result.plaintextFallback = settings::settingsBool(conf, u"secrets/plaintext_fallback"_s);
    result.plaintextFile = settings::settingsString(conf, u"secrets/plaintext_file"_s);
    return result;
}

SecretStore::SecretStore(QObject *parent) : SecretStore(Settings::fromQSettings(), parent) {}

SecretStore::SecretStore(Settings settings, QObject *parent) : QObject(parent)
{
    qRegisterMetaType<SecretResult>();
    applySettings(std::move(settings));
}

void SecretStore::applySettings(Settings settings)
{
    m_settings = std::move(settings);
    if (m_settings.plaintextFile.isEmpty())
        m_settings.plaintextFile =
            QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
            u"/opsdeck/secrets.json"_s;
}

void SecretStore::reloadSettings()
{
    applySettings(Settings::fromQSettings());
    Q_EMIT settingsChanged();
}

QString SecretStore::serviceId()
{
    return u"opsdeck"_s;
}

QString SecretStore::httpApiKeyName(const QString &service)
{
    return u"http/%1/api-key"_s.arg(service);
}

QString SecretStore::sshKeyName(const QString &host, const QString &user)
{
    return u"ssh/%1/%2"_s.arg(host, user);
}

QString SecretStore::keyProblem(const QString &key)
{
    if (key.isEmpty())
        return u"a secret's key must not be empty"_s;
    if (key.size() > 256)
        return u"a secret's key must be at most 256 characters"_s;
    for (const QChar c : key) {
        if (c.unicode() <= 0x20 || c.unicode() >= 0x7f)
            return u"a secret's key must be printable ASCII without spaces (e.g. "
                   "http/decode/api-key)"_s;
    }
    return {};
}

bool SecretStore::overwrite(QByteArray &buffer)
{
    // isDetached() is false for a shared buffer and for raw data we do not own:
    // data() would copy, and only the copy would be zeroed.
    if (buffer.isEmpty() || !buffer.isDetached())
        return false;
    ::explicit_bzero(buffer.data(), static_cast<size_t>(buffer.size()));
    return true;
}

bool SecretStore::overwrite(QString &text)
{
    if (text.isEmpty() || !text.isDetached())
        return false;
    ::explicit_bzero(text.data(), static_cast<size_t>(text.size()) * sizeof(QChar));
    return true;
}

void SecretStore::wipe(QByteArray &buffer)
{
    overwrite(buffer);
    buffer.clear();
}

void SecretStore::wipe(QString &text)
{
    overwrite(text);
    text.clear();
}

quint64 SecretStore::read(const QString &key)
{
    return start(Operation::Read, key, {});
}

quint64 SecretStore::write(const QString &key, const QByteArray &value)
{
    return start(Operation::Write, key, value);
}

quint64 SecretStore::remove(const QString &key)
{
    return start(Operation::Remove, key, {});
}

SecretStore &SecretStore::shared()
{
    static std::mutex creating;
    static SecretStore *store = nullptr;
    const std::lock_guard lock(creating);
    if (!store) {
        QCoreApplication *app = QCoreApplication::instance();
        store = new SecretStore(Settings::fromQSettings(), nullptr);
        // Pushed from the creating thread to the main thread, where QtKeychain runs;
        // deleted with the application.
        store->moveToThread(app->thread());
        store->setParent(app);
    }
    return *store;
}

quint64 SecretStore::start(Operation operation, const QString &key, const QByteArray &value)
{
    const quint64 id = ++m_nextId;
    if (QThread::currentThread() == thread()) {
        run(operation, id, key, value);
        return id;
    }
    // A private copy for the trip to the store's thread, zeroed when the call
    // has run (or is dropped): the caller's buffer stays the caller's to wipe.
    auto held = std::make_shared<SecretBytes>(SecretBytes::copyOf(value));
    QMetaObject::invokeMethod(
        this,
        [this, operation, id, key, held] {
            QByteArray bytes = held->copy();
            held->clear();
            run(operation, id, key, bytes);
            wipe(bytes);
        },
        Qt::QueuedConnection);
    return id;
}

void SecretStore::run(Operation operation, quint64 id, const QString &key, const QByteArray &value)
{
    if (const QString problem = keyProblem(key); !problem.isEmpty()) {
        // Queued so the caller always gets its id before the signal.
        QMetaObject::invokeMethod(
            this,
            [this, operation, id, key, problem] {
                finish(operation, id, key, {Status::Failed, {}, problem});
            },
            Qt::QueuedConnection);
        return;
    }
    QKeychain::Job *job = nullptr;
    if (operation == Operation::Read) {
        job = new QKeychain::ReadPasswordJob(serviceId(), this);
    } else if (operation == Operation::Write) {
        auto *writeJob = new QKeychain::WritePasswordJob(serviceId(), this);
        writeJob->setBinaryData(value);
        job = writeJob;
    } else {
        job = new QKeychain::DeletePasswordJob(serviceId(), this);
    }
    job->setAutoDelete(true);
    job->setKey(key);
    if (operation == Operation::Write) {
        // The job keeps a reference to `value` until it is deleted; this one
        // outlives it, so it is the last and its wipe zeroes the bytes.
        connect(job, &QObject::destroyed, this, [sent = value]() mutable { wipe(sent); });
    }
    // The fallback needs the value after the job is gone; a private copy,
    // zeroed when the holder goes.
    auto kept = std::make_shared<SecretBytes>(
        m_settings.plaintextFallback ? SecretBytes::copyOf(value) : SecretBytes());
    connect(
        job, &QKeychain::Job::finished, this,
        [this, operation, id, key, kept](QKeychain::Job *done) mutable {
            SecretResult result;
            const QKeychain::Error error = done->error();
            if (error == QKeychain::NoError) {
                result.status = Status::Ok;
                if (operation == Operation::Read)
                    result.value = static_cast<QKeychain::ReadPasswordJob *>(done)->binaryData();
            } else if (error == QKeychain::EntryNotFound) {
                // A locked keychain says "not found" for what it holds.
                const QString locked = KeychainLockState::lockedReason();
                result =
                    locked.isEmpty()
                        ? SecretResult{Status::NotFound,
                                       {},
                                       u"%1 is not in the secret store"_s.arg(key)}
                        : SecretResult{Status::Failed,
                                       {},
                                       u"cannot tell whether %1 is there: %2"_s.arg(key, locked)};
            } else if (m_settings.plaintextFallback && keychainMissing(error)) {
                const QByteArray keptBytes = QByteArray::fromRawData(
                    kept->constData(), kept->size()); // a view; no copy to wipe
                result = fallback(operation, key, keptBytes, done->errorString());
            } else {
                result = {
                    Status::Failed,
                    {},
                    u"the keychain could not %1 %2: %3"_s.arg(
                        operationWord(operation == Operation::Read, operation == Operation::Write),
                        key, done->errorString())};
            }
            kept->clear();
            finish(operation, id, key, std::move(result));
        });
    job->start();
}

SecretResult SecretStore::fallback(Operation operation, const QString &key, const QByteArray &value,
                                   const QString &keychainError)
{
    PlaintextSecretFile file(m_settings.plaintextFile);
    spdlog::warn("secrets: no keychain ({}); using the plaintext file {} (mode 0600) as the "
                 "settings allow, for {}",
                 keychainError.toStdString(), file.path().toStdString(), key.toStdString());
    Q_EMIT plaintextFallbackUsed(
        key, operationWord(operation == Operation::Read, operation == Operation::Write),
        file.path());
    if (operation == Operation::Read)
        return file.read(key);
    if (operation == Operation::Write)
        return file.write(key, value);
    return file.remove(key);
}

void SecretStore::finish(Operation operation, quint64 id, const QString &key, SecretResult result)
{
    if (operation == Operation::Read)
        Q_EMIT readFinished(id, key, result);
    else if (operation == Operation::Write)
        Q_EMIT writeFinished(id, key, result);
    else
        Q_EMIT removeFinished(id, key, result);
    wipe(result.value);
}

SecretResult SecretStore::wait(Operation operation, const QString &key, const QByteArray &value,
                               std::chrono::milliseconds deadline)
{
    QEventLoop loop;
    std::optional<SecretResult> answer;
    quint64 wanted = 0;
    auto take = [&](quint64 id, const QString &, const SecretResult &result) {
        if (id != wanted || answer)
            return;
        answer = result;
        loop.quit();
    };
    // Connected before start(): a result can only arrive from the event loop,
    // so `wanted` is set before any signal is delivered.
    if (operation == Operation::Read)
        connect(this, &SecretStore::readFinished, &loop, take);
    else if (operation == Operation::Write)
        connect(this, &SecretStore::writeFinished, &loop, take);
    else
        connect(this, &SecretStore::removeFinished, &loop, take);
    wanted = start(operation, key, value);
    QTimer::singleShot(deadline, &loop, &QEventLoop::quit);
    if (!answer)
        loop.exec();
    if (answer) // moved: the caller gets the only reference and wipes it
        return std::move(*answer);
    return {Status::TimedOut,
            {},
            u"the keychain did not answer within %1 ms (%2)"_s.arg(deadline.count()).arg(key)};
}

SecretResult SecretStore::readBlocking(const QString &key, std::chrono::milliseconds deadline)
{
    return wait(Operation::Read, key, {}, deadline);
}

SecretResult SecretStore::writeBlocking(const QString &key, const QByteArray &value,
                                        std::chrono::milliseconds deadline)
{
    return wait(Operation::Write, key, value, deadline);
}

SecretResult SecretStore::removeBlocking(const QString &key, std::chrono::milliseconds deadline)
{
    return wait(Operation::Remove, key, {}, deadline);
}

} // namespace opsdeck::secrets
