#pragma once

#include <QString>
#include <QStringList>
#include <functional>
#include <libssh/libssh.h>

namespace opsdeck::remote {

/// Decides whether a connected session's server key is trusted, as OpenSSH's
/// StrictHostKeyChecking=yes would, plus one way in for a new host: the
/// operator's `SHA256:` fingerprint, checked out of band (issue 5, host keys).
/// Thread: the session's. Every decision is logged with a "host key" line,
/// and reported through SshSettings::hostKeyDecided (the audit log).
class SshHostKeyCheck
{
public:
    /// What was decided, for the audit log and the unknown-key dialog.
    enum class Outcome
    {
        Matched,        ///< the key is the one known_hosts holds
        AcceptedNew,    ///< unknown, equal to the accepted fingerprint, saved to known_hosts
        RefusedUnknown, ///< unknown and not accepted (no or another fingerprint given)
        RefusedChanged, ///< known_hosts holds another key (or type) for the host: possible attack
        Error           ///< the key could not be read, checked or saved: refused
    };
    /// `matched`, `accepted-new`, `refused-unknown`, `refused-changed`, `error`.
    static QString outcomeName(Outcome outcome);

    struct Decision
    {
        Outcome outcome = Outcome::Error;
        bool trusted = false;
        QString keyType;     ///< e.g. "ssh-ed25519"
        QString fingerprint; ///< "SHA256:<base64>" of the server's key
        QString message;     ///< why refused, for the operator (several lines); empty when trusted
    };

    /// Asked with the AcceptedNew decision before the key is saved; false
    /// (with the reason in `why`) refuses it and nothing is saved. The audit
    /// log's entry is written here: an acceptance it cannot record does not happen.
    using BeforeSave = std::function<bool(const Decision &decision, QString *why)>;

    /// `hostEntry` is the known_hosts name: `host` for port 22, else `[host]:port`.
    /// `knownHostsFile` is where libssh reads and writes (for the lines to remove).
    static Decision check(ssh_session session, const QString &hostEntry,
                          const QString &knownHostsFile, const QString &acceptedFingerprint,
                          const BeforeSave &beforeSave = {});

    /// "SHA256:<base64 without padding>", as `ssh-keygen -l` prints it; empty on error.
    static QString fingerprint(ssh_key key);
    /// `FILE:LINE` of every line of `file` that names `hostEntry` (hashed names too).
    static QStringList matchingLines(const QString &file, const QString &hostEntry);
};

} // namespace opsdeck::remote
