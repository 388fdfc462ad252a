#pragma once

#include <QMetaType>
#include <QString>

namespace opsdeck::remote {

/// Where a host's SSH session stands, for the window and the CLI's exit code.
struct SshConnectionState
{
    enum class Phase
    {
        Disconnected,   ///< no session yet, or it was closed / lost
        Connecting,     ///< TCP, key exchange and host key check
        Authenticating, ///< none -> public key -> password
        Connected,      ///< commands run
        Failed          ///< the last attempt failed: see failure and reason
    };
    enum class Failure
    {
        None,
        Config,         ///< the ssh config or settings cannot be used (ProxyJump, bad file)
        Connect,        ///< TCP / key exchange failed or timed out
        HostKeyRefused, ///< unknown without the exact accepted fingerprint, changed, or other type
        Auth            ///< no method the server allows succeeded
    };

    Phase phase = Phase::Disconnected;
    Failure failure = Failure::None;
    QString reason; ///< one or more lines for the operator; never holds a secret
    /// With Failed or Disconnected after a lost session: the next connect
    /// attempt is this far away (ms; 0: none planned, the next command tries).
    qint64 reconnectInMs = 0;
    /// With HostKeyRefused: the server's key, so the window can show it (and,
    /// only when `hostKeyUnknown`, offer to accept it). Empty otherwise.
    QString hostKeyType{};
    QString hostKeyFingerprint{}; ///< "SHA256:<base64>"
    QString hostEntry{};          ///< the known_hosts name the key was checked under
    bool hostKeyUnknown = false;  ///< not in known_hosts (never true for a changed key)

    /// One line for the window and the CLI: "connected", "authenticating",
    /// "failed: <reason>", "reconnecting in 4 s: <reason>".
    QString describe() const;
};

} // namespace opsdeck::remote

Q_DECLARE_METATYPE(opsdeck::remote::SshConnectionState)
