#pragma once

#include "sshsettings.h"

#include <QString>
#include <QStringList>
#include <libssh/libssh.h>
#include <optional>

namespace opsdeck::remote {

/// Authenticates a connected session whose host key is trusted, in the
/// order of issue 5: none -> public key (ssh-agent first, then key files; an
/// encrypted key's passphrase from SshSettings::passphrase) ->
/// keyboard-interactive -> password. Keyboard-interactive answers only prompts
/// that ask for the password (asksForPassword), with the same
/// SshSettings::password answer the password method uses; any other prompt
/// (a one-time code, "Verification code:") fails that method at once with a
/// note naming the prompt, never waits for a person. A failure names the
/// methods tried and the server's allowed methods, plus a note per skipped key
/// or refused prompt. Thread: the session's (the callbacks run there too).
/// Secrets never reach a message or the log, and are wiped when done.
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
    ~SshAuthenticator();
    SshAuthenticator(const SshAuthenticator &) = delete;
    SshAuthenticator &operator=(const SshAuthenticator &) = delete;

    Outcome authenticate();

    /// "publickey, password" from ssh_userauth_list()'s bits.
    static QString methodNames(int methods);
    /// A keyboard-interactive prompt that asks for the login password: echo
    /// off and "assword" in its text (PAM's "Password: ", OpenSSH's
    /// "user@host's password: ").
    static bool asksForPassword(const QString &prompt, bool echo);

private:
    bool tryAgent();
    bool tryKeyFiles();
    bool tryKeyFile(const QString &file);
    bool tryDefaultKeys();
    bool tryKeyboardInteractive();
    bool tryPassword();
    /// The password from SshSettings::password, asked for at most once per
    /// authentication; nullptr when there is none.
    const QByteArray *password();
    void wipePassword();
    /// libssh asks this for a key's passphrase while reading a key file without
    /// one: it only records that the key is encrypted (the passphrase comes
    /// from SshSettings::passphrase in a second read), so nothing blocks on a prompt.
    static int passphraseWanted(const char *prompt, char *buf, size_t len, int echo, int verify,
                                void *userdata);

    ssh_session m_session;
    const SshSettings &m_settings;
    QString m_userAtHost;
    QStringList m_tried;
    QStringList m_notes;
    QString m_method;
    bool m_passphraseAsked = false;
    bool m_passwordFetched = false;
    std::optional<QByteArray> m_password;
};

} // namespace opsdeck::remote
