#pragma once

#include "secretresult.h"

#include <QObject>
#include <QString>
#include <atomic>
#include <chrono>

namespace opsdeck::secrets {

/// The one way OpsDeck keeps secrets (DESIGN.md): API keys and SSH passwords
/// in the desktop keychain through QtKeychain (Secret Service: gnome-keyring,
/// KWallet), under the service id "opsdeck" and keys such as
/// `http/<service>/api-key` and `ssh/<host>/<user>`.
///
/// No plaintext fallback unless Settings::plaintextFallback is on: then, when
/// no keychain answers, secrets go to a 0600 file (PlaintextSecretFile), a
/// warning is logged each time and plaintextFallbackUsed() is emitted; the
/// window shows a banner while the setting is on (plaintextFallbackEnabled()).
/// Values are never logged and never part of an error text; buffers this
/// class fills or copies are wiped after use (SecretBytes, wipe()).
///
/// Thread: QtKeychain is not thread-safe (its jobs share state with the
/// thread that first used it), so every job runs in the store's own thread,
/// which must run an event loop. The async calls (any thread) return an id at
/// once; the matching *Finished signal carries it. The blocking calls run a
/// local event loop in the calling thread until the answer or a deadline: for
/// the CLI, tests and worker threads, never the GUI thread. From a worker
/// thread use shared(), which lives in the application's main thread: the job
/// runs there while the worker waits (so the main thread must not be blocked
/// on that worker; the deadline bounds the wait if it is).
class SecretStore : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        /// Off by default: on, a keychain that is unavailable makes secrets go to
        /// `plaintextFile` (mode 0600) with a warning in the log.
        bool plaintextFallback = false;
        /// Empty: `secrets.json` in the OpsDeck data directory.
        QString plaintextFile;
        /// From `$XDG_CONFIG_HOME/opsdeck/opsdeck.conf` (`~/.config/...`), section
        /// `[secrets]`: `plaintext_fallback=true|false`, `plaintext_file=PATH`
        /// (read by settingsvalues.h: on only for true/yes/on/1, commas kept).
        /// (settings::AppPaths::configFile()).
        static Settings fromQSettings();
    };

    explicit SecretStore(QObject *parent = nullptr);
    SecretStore(Settings settings, QObject *parent);

    /// The store of the application's main thread, with Settings::fromQSettings();
    /// created on first use (any thread), deleted with the application.
    static SecretStore &shared();

    /// "opsdeck": the keychain service id every key is stored under.
    static QString serviceId();
    /// `http/<service>/api-key`: the key of a service's API key (inventory `api_key: secret`).
    static QString httpApiKeyName(const QString &service);
    /// `ssh/<host>/<user>`: the key of an SSH password or passphrase.
    static QString sshKeyName(const QString &host, const QString &user);
    /// A key is printable ASCII without spaces, 1..256 characters; empty string
    /// when valid, else why not.
    static QString keyProblem(const QString &key);
    /// Zeroes `buffer`'s bytes in place when it holds the only reference and
    /// says whether it did. A shared buffer is left alone: writing through
    /// data() would detach and zero a copy, and the bytes belong to the other
    /// owners too; the last owner's wipe zeroes them. So every owner of a
    /// secret calls wipe() (or holds a SecretBytes) when done.
    static bool overwrite(QByteArray &buffer);
    static bool overwrite(QString &text);
    /// overwrite(), then empties `buffer` (dropping this reference).
    static void wipe(QByteArray &buffer);
    static void wipe(QString &text);

    /// Whether the plaintext fallback is switched on, and its file (absolute
    /// path). The store's thread (the main thread for shared()).
    bool plaintextFallbackEnabled() const { return m_settings.plaintextFallback; }
    QString plaintextFilePath() const { return m_settings.plaintextFile; }
    /// Reads Settings::fromQSettings() again (the window does when it opens,
    /// so an edited opsdeck.conf counts without a restart of the process) and
    /// emits settingsChanged(). The store's thread.
    void reloadSettings();

    quint64 read(const QString &key);
    quint64 write(const QString &key, const QByteArray &value);
    /// Removing a key that is not there succeeds: the Secret Service does not
    /// say whether it deleted anything (read first to tell the two apart).
    quint64 remove(const QString &key);

    SecretResult readBlocking(const QString &key,
                              std::chrono::milliseconds deadline = std::chrono::seconds(10));
    SecretResult writeBlocking(const QString &key, const QByteArray &value,
                               std::chrono::milliseconds deadline = std::chrono::seconds(10));
    SecretResult removeBlocking(const QString &key,
                                std::chrono::milliseconds deadline = std::chrono::seconds(10));

Q_SIGNALS:
    /// `id` is what read()/write()/remove() returned.
    void readFinished(quint64 id, const QString &key, const opsdeck::secrets::SecretResult &result);
    void writeFinished(quint64 id, const QString &key,
                       const opsdeck::secrets::SecretResult &result);
    void removeFinished(quint64 id, const QString &key,
                        const opsdeck::secrets::SecretResult &result);
    /// reloadSettings() ran; plaintextFallbackEnabled() may differ.
    void settingsChanged();
    /// No keychain answered and `key` was read, written or removed ("read",
    /// "write", "delete": `operation`) in the plaintext file `path` instead.
    /// Emitted in the store's thread, before the matching *Finished signal.
    void plaintextFallbackUsed(const QString &key, const QString &operation, const QString &path);

private:
    enum class Operation
    {
        Read,
        Write,
        Remove
    };
    quint64 start(Operation operation, const QString &key, const QByteArray &value);
    void run(Operation operation, quint64 id, const QString &key, const QByteArray &value);
    void finish(Operation operation, quint64 id, const QString &key, SecretResult result);
    SecretResult fallback(Operation operation, const QString &key, const QByteArray &value,
                          const QString &keychainError);
    SecretResult wait(Operation operation, const QString &key, const QByteArray &value,
                      std::chrono::milliseconds deadline);

    void applySettings(Settings settings);

    Settings m_settings;
    std::atomic<quint64> m_nextId{0}; // ids are taken by any thread
};

} // namespace opsdeck::secrets
