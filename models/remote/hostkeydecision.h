#pragma once

#include <QMetaType>
#include <QString>

namespace opsdeck::remote {

/// One host-key decision of an SSH connect (SshHostKeyCheck), as the audit
/// log and the unknown-key dialog need it. Plain data; never holds a secret
/// (a host key is public).
struct HostKeyDecision
{
    QString host;      ///< as the settings name it (inventory name or ssh alias)
    QString hostEntry; ///< the known_hosts name: `host` for port 22, else `[host]:port`
    /// SshHostKeyCheck::outcomeName(): `matched`, `accepted-new`,
    /// `refused-unknown`, `refused-changed` or `error`.
    QString outcome;
    QString keyType;        ///< e.g. "ssh-ed25519"; empty when the key could not be read
    QString fingerprint;    ///< "SHA256:<base64>" of the server's key
    QString knownHostsFile; ///< the file checked (and written on acceptance)
    QString message;        ///< why refused, several lines; empty when trusted
    bool jumpHost = false;  ///< the decision was about a ProxyJump hop, not `host` itself

    bool trusted() const
    {
        return outcome == QLatin1String("matched") || outcome == QLatin1String("accepted-new");
    }
};

} // namespace opsdeck::remote

Q_DECLARE_METATYPE(opsdeck::remote::HostKeyDecision)
