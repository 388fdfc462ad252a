#include "auditkey.h"

#include "apppaths.h"
#include "secretstore.h"

#include <QCryptographicHash>
#include <QEventLoop>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QThread>
#include <QTimer>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <spdlog/spdlog.h>

namespace opsdeck::history {

namespace {

using State = AuditLog::ChainKey::State;
using secrets::SecretResult;

constexpr std::chrono::seconds kDeadline(5);

// Keys by log path, once the store answered: asked once per process, so only
// the first append can ever wait for the keychain.
struct KeyCache
{
    std::mutex mutex;
    std::condition_variable answered;
    QHash<QString, AuditLog::ChainKey> keys;
};

KeyCache &cache()
{
    static KeyCache instance;
    return instance;
}

void remember(const QString &name, const AuditLog::ChainKey &key)
{
    KeyCache &c = cache();
    {
        const std::lock_guard lock(c.mutex);
        c.keys.insert(name, key);
    }
    c.answered.notify_all();
}

QByteArray newKey()
{
    QByteArray key(32, '\0');
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32 *>(key.data()), key.size() / 4);
    return key;
}

AuditLog::ChainKey fromRead(const SecretResult &read)
{
    if (read.ok() && read.value.size() >= 32)
        return {State::Key, read.value, {}};
    if (!read.ok() && read.status != SecretResult::Status::NotFound)
        return {
            State::Unavailable, {}, QStringLiteral("no secret store answered: %1").arg(read.error)};
    return {State::None, {}, {}};
}

bool isNewLog(const QString &logPath)
{
    const QFileInfo log(logPath);
    return (!log.exists() || log.size() == 0) &&
           !QFileInfo::exists(logPath + QStringLiteral(".head"));
}

// "audit/chain-key/<hash>" -> "audit/chain-anchor/<hash>".
QString anchorNameOf(const QString &keyName)
{
    return QStringLiteral("audit/chain-anchor/") + keyName.section(u'/', -1);
}

// Key and anchor writes sent and not yet answered (AuditKey::settle waits
// for them): a program that exits first would leave a keyed log whose key
// was never kept.
std::atomic<int> &storeWritesPending()
{
    static std::atomic<int> pending{0};
    return pending;
}

// The cached key of `name`, if the store answered; the first to take a key
// this process made learns so (`created`), later ones do not.
std::optional<AuditLog::ChainKey> takeCached(const QString &name)
{
    KeyCache &c = cache();
    const std::lock_guard lock(c.mutex);
    const auto known = c.keys.find(name);
    if (known == c.keys.end())
        return std::nullopt;
    const AuditLog::ChainKey key = *known;
    known->created = false;
    return key;
}

// On the store's own thread (the CLI's main thread): blocking is allowed there.
AuditLog::ChainKey askBlocking(const QString &name, bool create)
{
    secrets::SecretStore &store = secrets::SecretStore::shared();
    AuditLog::ChainKey key = fromRead(store.readBlocking(name, kDeadline));
    // The prefetch answered while this waited (and may have made the key).
    if (const auto known = takeCached(name))
        return *known;
    if (key.state == State::Key) {
        const SecretResult anchor = store.readBlocking(anchorNameOf(name), kDeadline);
        if (anchor.ok())
            key.anchor = AuditAnchor::parse(anchor.value);
    }
    if (key.state == State::None && create) {
        // Known before it is kept: a prefetch answering while this waits
        // defers to it instead of making another.
        const QByteArray value = newKey();
        remember(name, AuditLog::ChainKey{State::Key, value, {}, false});
        const SecretResult written = store.writeBlocking(name, value, kDeadline);
        key = written.ok()
                  ? AuditLog::ChainKey{State::Key, value, {}, true}
                  : AuditLog::ChainKey{
                        State::Unavailable,
                        {},
                        QStringLiteral("the key could not be kept: %1").arg(written.error)};
    }
    return key;
}

// The key is known; its anchor is asked for before anyone is told of it.
void prefetchAnchor(const QString &name, AuditLog::ChainKey key)
{
    secrets::SecretStore &store = secrets::SecretStore::shared();
    const QString anchorName = anchorNameOf(name);
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection =
        QObject::connect(&store, &secrets::SecretStore::readFinished, &store,
                         [name, anchorName, key, connection](quint64, const QString &asked,
                                                             const SecretResult &result) mutable {
                             if (asked != anchorName)
                                 return;
                             QObject::disconnect(*connection);
                             if (result.ok())
                                 key.anchor = AuditAnchor::parse(result.value);
                             remember(name, key);
                         });
    store.read(anchorName);
}

} // namespace

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

void AuditKey::prefetch(const QString &logPath)
{
    const QString name = secretName(logPath);
    {
        const std::lock_guard lock(cache().mutex);
        if (cache().keys.contains(name))
            return;
    }
    secrets::SecretStore &store = secrets::SecretStore::shared();
    auto connection = std::make_shared<QMetaObject::Connection>();
    // Matched by the key's name, not the id: on the store's thread the answer
    // may come before read() returns its id.
    *connection = QObject::connect(
        &store, &secrets::SecretStore::readFinished, &store,
        [&store, name, logPath, connection](quint64, const QString &asked,
                                            const SecretResult &result) {
            if (asked != name)
                return;
            QObject::disconnect(*connection);
            // Answered first on the store's thread (a first append asked it
            // blocking, and made the key if it had to): that answer stands.
            {
                const std::lock_guard lock(cache().mutex);
                if (cache().keys.contains(name))
                    return;
            }
            const AuditLog::ChainKey key = fromRead(result);
            if (key.state == State::Key)
                return prefetchAnchor(name, key);
            // Decided now, not when asked: a log begun unkeyed while the store
            // was slow to answer stays unkeyed rather than gain a key it lacks.
            if (key.state != State::None || !isNewLog(logPath))
                return remember(name, key);
            // Known before it is kept: the first append keys with it and knows
            // it made it (a key it found already kept would mean a log emptied).
            const QByteArray value = newKey();
            ++storeWritesPending(); // before anyone can key an entry with it
            remember(name, AuditLog::ChainKey{State::Key, value, {}, true});
            auto written = std::make_shared<QMetaObject::Connection>();
            *written = QObject::connect(
                &store, &secrets::SecretStore::writeFinished, &store,
                [name, written, logPath](quint64, const QString &asked, const SecretResult &done) {
                    if (asked != name)
                        return;
                    QObject::disconnect(*written);
                    --storeWritesPending();
                    if (done.ok())
                        return;
                    if (!isNewLog(logPath))
                        spdlog::error("audit: the chain key of {} could not be kept in the "
                                      "secret store ({}): entries keyed with it cannot be "
                                      "verified by a later run",
                                      logPath.toStdString(), done.error.toStdString());
                    remember(name,
                             AuditLog::ChainKey{
                                 State::Unavailable,
                                 {},
                                 QStringLiteral("the key could not be kept: %1").arg(done.error)});
                });
            store.write(name, value);
        });
    store.read(name);
}

AuditLog::KeySource AuditKey::fromSecretStore()
{
    return [](const QString &logPath, bool create) {
        const QString name = secretName(logPath);
        KeyCache &c = cache();
        {
            std::unique_lock lock(c.mutex);
            const auto known = c.keys.find(name);
            if (known != c.keys.end() && !(create && known->state == State::None)) {
                const AuditLog::ChainKey key = *known;
                known->created = false; // made once: later askers find it existing
                return key;
            }
        }
        if (QThread::currentThread() == secrets::SecretStore::shared().thread()) {
            {
                // Asked again to make it: "none" is no longer the answer.
                const std::lock_guard lock(c.mutex);
                c.keys.remove(name);
            }
            AuditLog::ChainKey key = askBlocking(name, create);
            remember(name, key);
            // Taken: the next asker does not learn it was made for it.
            if (key.created)
                takeCached(name);
            return key;
        }
        // Another thread (an SSH session's): the store's thread answers the
        // prefetch; this one never asks it to, so a store thread that waits
        // on this one (joining it) cannot deadlock: it only delays up to 5 s.
        std::unique_lock lock(c.mutex);
        if (c.answered.wait_for(lock, kDeadline, [&] { return c.keys.contains(name); }))
            return c.keys.value(name);
        // Remembered until the store answers: later entries do not wait again.
        const AuditLog::ChainKey late{
            State::Unavailable,
            {},
            QStringLiteral("the keychain did not answer within %1 s").arg(kDeadline.count())};
        c.keys.insert(name, late);
        return late;
    };
}

AuditLog::AnchorSink AuditKey::anchorSink()
{
    secrets::SecretStore &store = secrets::SecretStore::shared();
    static std::once_flag counted;
    std::call_once(counted, [&store] {
        QObject::connect(&store, &secrets::SecretStore::writeFinished, &store,
                         [](quint64, const QString &key, const SecretResult &result) {
                             if (!key.startsWith(u"audit/chain-anchor/"))
                                 return;
                             --storeWritesPending();
                             if (!result.ok())
                                 spdlog::warn("audit: the chain's anchor could not be kept in "
                                              "the secret store: {}",
                                              result.error.toStdString());
                         });
    });
    return [](const QString &logPath, const AuditAnchor &anchor) {
        secrets::SecretStore &store = secrets::SecretStore::shared();
        const QString keyName = secretName(logPath);
        const QString name = anchorNameOf(keyName);
        ++storeWritesPending();
        // Read, then kept only over an anchor the log still holds: this
        // process read the anchor once, and another one may have moved it
        // since, past an older log put back meanwhile; that anchor stays, as
        // the evidence. Never waited for here: an append runs inside its
        // caller's callbacks (a workflow's steps), where a nested event loop
        // would let them run again meanwhile. settle() waits for it.
        auto connection = std::make_shared<QMetaObject::Connection>();
        *connection = QObject::connect(
            &store, &secrets::SecretStore::readFinished, &store,
            [&store, logPath, keyName, name, anchor, connection](quint64, const QString &asked,
                                                                 const SecretResult &result) {
                if (asked != name)
                    return;
                QObject::disconnect(*connection);
                const std::optional<AuditAnchor> stored =
                    result.ok() ? AuditAnchor::parse(result.value) : std::nullopt;
                std::optional<QByteArray> key;
                {
                    const std::lock_guard lock(cache().mutex);
                    key = cache().keys.value(keyName).usable();
                }
                const bool forward = !stored || (key && stored->entries < anchor.entries &&
                                                 AuditLog::holdsAnchor(logPath, *stored, *key));
                if (forward)
                    return void(store.write(name, anchor.text()));
                --storeWritesPending();
                if (stored->entries != anchor.entries || stored->link != anchor.link)
                    spdlog::warn("audit log {}: the secret store's anchor (entry {}) is not in "
                                 "the log, or past entry {}: left where it is, as evidence",
                                 logPath.toStdString(), stored->entries, anchor.entries);
            });
        store.read(name);
    };
}

void AuditKey::settle(std::chrono::milliseconds deadline)
{
    if (storeWritesPending() <= 0)
        return;
    secrets::SecretStore &store = secrets::SecretStore::shared();
    if (QThread::currentThread() != store.thread())
        return;
    QEventLoop loop;
    QTimer::singleShot(deadline, &loop, &QEventLoop::quit);
    const auto quitWhenKept = [&loop] {
        if (storeWritesPending() <= 0)
            loop.quit();
    };
    // A write ends it, or the read before it that found it must not be made.
    QObject::connect(&store, &secrets::SecretStore::writeFinished, &loop, quitWhenKept);
    QObject::connect(&store, &secrets::SecretStore::readFinished, &loop, quitWhenKept,
                     Qt::QueuedConnection);
    if (storeWritesPending() > 0)
        loop.exec();
    if (const int pending = storeWritesPending(); pending > 0)
        spdlog::warn("audit: the secret store did not keep the chain's key or anchor within {} "
                     "ms ({} writes unanswered): an anchor lags the log, and `opsdeck-cli audit "
                     "--verify` guards the entries after it by the head alone",
                     deadline.count(), pending);
}

std::shared_ptr<AuditLog> AuditKey::inDataDir(const QString &dataDir)
{
    const QString path = AuditLog::pathIn(settings::AppPaths::dataDir(dataDir));
    prefetch(path);
    return std::make_shared<AuditLog>(path, fromSecretStore(), anchorSink());
}

} // namespace opsdeck::history
