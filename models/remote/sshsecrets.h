#pragma once

#include "sshsettings.h"

#include <QByteArray>
#include <QString>
#include <functional>
#include <optional>

namespace opsdeck::secrets {
class SecretStore;
}

namespace opsdeck::remote {

/// Where SSH passwords and key passphrases come from (issue 5): the keychain
/// through SecretStore, else one question to the operator through a prompt
/// hook the app or the CLI may give. install() fills SshSettings::password
/// and SshSettings::passphrase with callbacks that do this.
///
/// Keychain keys (service "opsdeck", secretstore.h):
/// - `ssh/<host>/<user>`: the login password; `<host>` is SshSettings::host as
///   given (inventory name or ssh config alias, not the resolved address),
///   `<user>` the login name after the ssh config.
/// - `ssh/key/<path>`: the passphrase of a private key file, by its absolute
///   path (percent-encoded where not printable ASCII, or a space, or `%`),
///   since one key serves many hosts. A path too long for a key (256
///   characters) uses `ssh/key/sha256:<hex of the path>`.
///
/// Thread: the callbacks run in the session's thread. QtKeychain jobs must run
/// in the thread that owns the store, with an event loop (secretstore.h), so
/// the callbacks use SecretStore's blocking read, which hands the job to the
/// store's thread and waits (at most keychainDeadline) in a local event loop
/// of the session thread. The store (by default SecretStore::shared(), in the
/// main thread) must outlive the settings' transports, and its thread must
/// not be blocked on the session: the app's GUI thread and the CLI's
/// runAndWait() loop both run events meanwhile. A keychain that does not
/// answer in time counts as "no secret" (logged, without the value).
class SshSecrets
{
public:
    /// Asks the operator for a secret; `question` says which ("Password for
    /// root@gpu-node-1: "). nullopt: declined, or no one to ask. Called in the
    /// session thread. Each keychain key is asked at most once per install()
    /// (a wrong answer is not asked again), so reconnects never become a
    /// stream of questions.
    using Prompt = std::function<std::optional<QByteArray>(const QString &question)>;

    /// `ssh/<host>/<user>`.
    static QString passwordKey(const QString &host, const QString &user);
    /// `ssh/key/<absolute path, percent-encoded>` (see above).
    static QString passphraseKey(const QString &keyFile);

    /// The keychain wait for one secret, ms.
    static constexpr std::chrono::milliseconds keychainDeadline = std::chrono::seconds(10);

    /// Sets settings.password and settings.passphrase. `store` nullptr:
    /// SecretStore::shared(). `prompt` empty: the keychain only.
    static void install(SshSettings &settings, Prompt prompt = {},
                        secrets::SecretStore *store = nullptr);
};

} // namespace opsdeck::remote
