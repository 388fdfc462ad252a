#pragma once

#include "sshsettings.h"

#include <QString>
#include <QStringList>
#include <libssh/libssh.h>

namespace opsdeck::remote {

/// Authenticates a connected session whose host key is trusted, in the
/// order of issue 5: none -> public key (ssh-agent first, then key files)
/// -> password (only when SshSettings::password gives one). Keyboard-
/// interactive is not built yet. A failure names the methods tried and the
/// server's allowed methods. Thread: the session's. Secrets never reach a
/// message or the log.
class SshAuthenticator
{
public:
    struct Outcome
    {
        bool authenticated = false;
        QString method;  ///< what succeeded, e.g. "publickey (/path/id_ed25519)"
        QString message; ///< on failure: "tried: ...; the server allows: ...", plus notes
    };

    SshAuthenticator(ssh_session session, const SshSettings &settings, QString userAtHost);
    Outcome authenticate();

    /// "publickey, password" from ssh_userauth_list()'s bits.
    static QString methodNames(int methods);

private:
    bool tryAgent();
    bool tryKeyFiles();
    bool tryDefaultKeys();
    bool tryPassword();
    /// libssh asks this for a key's passphrase: we have none to give (yet), so
    /// the key is skipped with a note instead of blocking on a prompt.
    static int passphraseWanted(const char *prompt, char *buf, size_t len, int echo, int verify,
                                void *userdata);

    ssh_session m_session;
    const SshSettings &m_settings;
    QString m_userAtHost;
    QStringList m_tried;
    QStringList m_notes;
    QString m_method;
    bool m_passphraseAsked = false;
};

} // namespace opsdeck::remote
