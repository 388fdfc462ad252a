#pragma once

#include "hostkeydecision.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <chrono>
#include <functional>
#include <optional>

namespace opsdeck::remote {

/// How SshTransport reaches one host. Plain data, copied into the session's
/// thread. Empty fields mean "as OpenSSH would": the SSH directory is
/// `~/.ssh` of the user in the password database (not `$HOME`), the client
/// config `~/.ssh/config` (plus /etc/ssh/ssh_config), known_hosts
/// `~/.ssh/known_hosts`, keys from ssh-agent and the config's IdentityFile or
/// `~/.ssh/id_ed25519`, `id_ecdsa`, `id_rsa`.
struct SshSettings
{
    /// What the user calls the host: an ssh config alias (`Host` pattern) or
    /// a DNS name / IP. The config's HostName, Port, User apply to it.
    QString host;
    /// Overrides of the config (the inventory's address, port, user), applied
    /// after the config is read, as `ssh -p`/`-l` beat the config.
    QString address;
    int port = 0; ///< 0: from the config, else 22
    QString user; ///< empty: from the config, else the local user

    QString sshDirectory; ///< empty: ~/.ssh from the password database
    QString configFile; ///< empty: ~/.ssh/config and /etc/ssh/ssh_config; else only this file (like
                        ///< ssh -F)
    QString knownHostsFile; ///< empty: <sshDirectory>/known_hosts
    /// When set, only these private key files are tried (after the agent),
    /// each reported by name; else libssh's list (config IdentityFile, defaults).
    QStringList identityFiles;
    bool useAgent = true; ///< try ssh-agent first when SSH_AUTH_SOCK is set

    /// `SHA256:<base64>` as `ssh-keygen -l` prints it. An unknown host key
    /// equal to this is accepted and saved to known_hosts; any other unknown
    /// key is refused. A changed key is refused whatever this says.
    QString acceptedFingerprint;
    /// Optional: told every host-key decision of this host and of its
    /// ProxyJump hops (matched, accepted, refused), in the session's thread,
    /// before the connect goes on or fails. For the audit log; must not block
    /// long. Returns whether the decision was recorded: an `accepted-new` is
    /// told before the key is saved, and one not recorded is refused (nothing
    /// saved, the connect fails naming why).
    std::function<bool(const HostKeyDecision &decision, QString *error)> hostKeyDecided;

    /// TCP connect + key exchange limit, ms (SSH_OPTIONS_TIMEOUT_USEC).
    std::chrono::milliseconds connectTimeout = std::chrono::seconds(10);
    /// After a failed connect (TCP, key exchange) the next one is tried in the
    /// background this much later, doubling after each failure up to
    /// reconnectMaxDelay, back to this after a success (ms). Commands that come
    /// meanwhile fail at once with the reason. A session that was lost is
    /// reconnected at once.
    std::chrono::milliseconds reconnectInitialDelay = std::chrono::milliseconds(500);
    std::chrono::milliseconds reconnectMaxDelay = std::chrono::seconds(30);
    /// An idle session sends an SSH_MSG_IGNORE this often (ms; 0: never), as
    /// OpenSSH's ServerAliveInterval keeps NAT and firewall state alive; a
    /// dead peer shows as a failed write. libssh 0.10 has no keepalive@openssh.com
    /// request, and its config parser ignores ServerAliveInterval, so it is set here.
    /// Checked once a second while idle, so the effective interval is rounded up to seconds.
    std::chrono::milliseconds keepAliveInterval = std::chrono::seconds(15);
    /// Optional: gives the password for `user` (sshsecrets.h: the keychain key
    /// `ssh/<host>/<user>`, else asked once). Called in the session thread, at
    /// most once per authentication (the answer serves keyboard-interactive and
    /// then password), only after public keys failed and when the server allows
    /// one of those methods. The returned bytes are wiped after use. nullopt: no
    /// password is tried.
    std::function<std::optional<QByteArray>(const QString &host, const QString &user)> password;
    /// Optional: gives the passphrase of an encrypted private key file
    /// (`keyFile` is the path as in identityFiles; sshsecrets.h: keychain key
    /// `ssh/key/<path>`, else asked once). Called in the session thread only
    /// for a key whose public half (`<keyFile>.pub`) the server accepts, or that
    /// has no .pub. The returned bytes are wiped after use. nullopt: the key is
    /// skipped with a note. Used for identityFiles only: libssh's own key list
    /// (identityFiles empty) does not say which file wants the passphrase.
    std::function<std::optional<QByteArray>(const QString &keyFile)> passphrase;
};

} // namespace opsdeck::remote
