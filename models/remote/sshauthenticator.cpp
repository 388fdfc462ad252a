#include "sshauthenticator.h"

#include "secretstore.h"

#include <QFile>
#include <QFileInfo>
#include <libssh/callbacks.h>
#include <spdlog/spdlog.h>
#include <string.h>

namespace opsdeck::remote {

SshAuthenticator::SshAuthenticator(ssh_session session, const SshSettings &settings,
                                   QString userAtHost)
    : m_session(session), m_settings(settings), m_userAtHost(std::move(userAtHost))
{
}

SshAuthenticator::~SshAuthenticator()
{
    wipePassword();
}

namespace {

void wipe(std::optional<QByteArray> &secret)
{
    if (!secret)
        return;
    // Zeroes the bytes themselves when this is their only owner (SshSecrets and
    // SecretPrompt hand over buffers of their own). explicit_bzero through
    // data() would detach a shared buffer and zero only a fresh copy.
    secrets::SecretStore::wipe(*secret);
    secret.reset();
}

} // namespace

void SshAuthenticator::wipePassword()
{
    wipe(m_password);
}

const QByteArray *SshAuthenticator::password()
{
    if (!m_passwordFetched && m_settings.password) {
        m_passwordFetched = true;
        char *user = nullptr;
        ssh_options_get(m_session, SSH_OPTIONS_USER, &user);
        const QString userName = user ? QString::fromUtf8(user) : QString();
        ssh_string_free_char(user);
        m_password = m_settings.password(m_settings.host, userName);
    }
    return m_password ? &*m_password : nullptr;
}

bool SshAuthenticator::asksForPassword(const QString &prompt, bool echo)
{
    return !echo && prompt.contains(QLatin1String("assword"));
}

QString SshAuthenticator::methodNames(int methods)
{
    QStringList names;
    if (methods & SSH_AUTH_METHOD_PUBLICKEY)
        names << QStringLiteral("publickey");
    if (methods & SSH_AUTH_METHOD_INTERACTIVE)
        names << QStringLiteral("keyboard-interactive");
    if (methods & SSH_AUTH_METHOD_PASSWORD)
        names << QStringLiteral("password");
    if (methods & SSH_AUTH_METHOD_HOSTBASED)
        names << QStringLiteral("hostbased");
    if (methods & SSH_AUTH_METHOD_GSSAPI_MIC)
        names << QStringLiteral("gssapi-with-mic");
    return names.isEmpty() ? QStringLiteral("(none listed)") : names.join(QStringLiteral(", "));
}

int SshAuthenticator::passphraseWanted(const char *, char *, size_t, int, int, void *userdata)
{
    static_cast<SshAuthenticator *>(userdata)->m_passphraseAsked = true;
    return -1;
}

bool SshAuthenticator::tryAgent()
{
    if (!m_settings.useAgent || qEnvironmentVariableIsEmpty("SSH_AUTH_SOCK"))
        return false;
    m_tried << QStringLiteral("publickey (ssh-agent)");
    if (ssh_userauth_agent(m_session, nullptr) != SSH_AUTH_SUCCESS)
        return false;
    m_method = QStringLiteral("publickey (ssh-agent)");
    return true;
}

bool SshAuthenticator::tryKeyFiles()
{
    for (const QString &file : m_settings.identityFiles) {
        m_tried << QStringLiteral("publickey (%1)").arg(file);
        if (tryKeyFile(file)) {
            m_method = QStringLiteral("publickey (%1)").arg(file);
            return true;
        }
    }
    return false;
}

bool SshAuthenticator::tryKeyFile(const QString &file)
{
    if (!QFileInfo::exists(file)) {
        m_notes << QStringLiteral("%1: no such key file").arg(file);
        return false;
    }
    // Offer the public half first, as OpenSSH does: a key the server would
    // refuse costs no passphrase (and no question to the operator).
    const QString publicFile = file + QStringLiteral(".pub");
    if (QFileInfo::exists(publicFile)) {
        ssh_key publicKey = nullptr;
        if (ssh_pki_import_pubkey_file(QFile::encodeName(publicFile).constData(), &publicKey) ==
            SSH_OK) {
            const int offered = ssh_userauth_try_publickey(m_session, nullptr, publicKey);
            ssh_key_free(publicKey);
            if (offered != SSH_AUTH_SUCCESS) {
                m_notes << QStringLiteral("%1: refused by the server").arg(file);
                return false;
            }
        }
    }
    const QByteArray path = QFile::encodeName(file);
    ssh_key key = nullptr;
    m_passphraseAsked = false;
    int rc = ssh_pki_import_privkey_file(path.constData(), nullptr,
                                         &SshAuthenticator::passphraseWanted, this, &key);
    if (rc != SSH_OK && m_passphraseAsked) {
        std::optional<QByteArray> passphrase;
        if (m_settings.passphrase)
            passphrase = m_settings.passphrase(file);
        if (!passphrase) {
            m_notes << QStringLiteral("%1: passphrase-protected, skipped (no passphrase in the "
                                      "keychain or given; or use ssh-agent)")
                           .arg(file);
            return false;
        }
        rc = ssh_pki_import_privkey_file(path.constData(), passphrase->constData(), nullptr,
                                         nullptr, &key);
        wipe(passphrase);
        if (rc != SSH_OK) {
            m_notes << QStringLiteral("%1: the passphrase given does not open it").arg(file);
            return false;
        }
    } else if (rc != SSH_OK) {
        m_notes << QStringLiteral("%1: not a private key libssh can read").arg(file);
        return false;
    }
    const int auth = ssh_userauth_publickey(m_session, nullptr, key);
    ssh_key_free(key);
    if (auth == SSH_AUTH_SUCCESS)
        return true;
    m_notes << QStringLiteral("%1: refused by the server").arg(file);
    return false;
}

bool SshAuthenticator::tryDefaultKeys()
{
    // libssh's list: the config's IdentityFile lines, then id_ed25519,
    // id_ecdsa, id_rsa in the SSH directory. It offers each public key before
    // loading the private one, and asks passphraseWanted for encrypted keys.
    ssh_callbacks_struct callbacks{};
    ssh_callbacks_init(&callbacks);
    callbacks.userdata = this;
    callbacks.auth_function = &SshAuthenticator::passphraseWanted;
    ssh_set_callbacks(m_session, &callbacks);
    m_passphraseAsked = false;
    m_tried << QStringLiteral("publickey (key files from the ssh config and the SSH directory)");
    const int rc = ssh_userauth_publickey_auto(m_session, nullptr, nullptr);
    // libssh refuses nullptr here and would keep a pointer to our stack
    // struct: hand it an empty struct that lives as long as the program.
    static ssh_callbacks_struct none = [] {
        ssh_callbacks_struct empty{};
        ssh_callbacks_init(&empty);
        return empty;
    }();
    ssh_set_callbacks(m_session, &none);
    if (m_passphraseAsked)
        m_notes << QStringLiteral(
            "a passphrase-protected key was skipped (libssh's own key list does "
            "not say which file; give it as an identity file, or use ssh-agent)");
    if (rc != SSH_AUTH_SUCCESS)
        return false;
    m_method = QStringLiteral("publickey (key file)");
    return true;
}

bool SshAuthenticator::tryKeyboardInteractive()
{
    m_tried << QStringLiteral("keyboard-interactive");
    bool answered = false;
    int rc = ssh_userauth_kbdint(m_session, nullptr, nullptr);
    // PAM may send rounds without prompts (messages); a bound keeps a server
    // that never stops asking from holding the session.
    for (int round = 0; rc == SSH_AUTH_INFO && round < 8; ++round) {
        const int prompts = ssh_userauth_kbdint_getnprompts(m_session);
        for (int i = 0; i < prompts; ++i) {
            char echo = 0;
            const QString prompt =
                QString::fromUtf8(ssh_userauth_kbdint_getprompt(m_session, i, &echo)).trimmed();
            if (!asksForPassword(prompt, echo != 0)) {
                m_notes << QStringLiteral("keyboard-interactive: the server asked \"%1\", which "
                                          "OpsDeck does not answer (only password prompts)")
                               .arg(prompt);
                return false;
            }
            const QByteArray *secret = password();
            if (!secret) {
                m_notes << QStringLiteral("keyboard-interactive: the server asked \"%1\" and no "
                                          "password is in the keychain or given")
                               .arg(prompt);
                return false;
            }
            ssh_userauth_kbdint_setanswer(m_session, static_cast<unsigned>(i), secret->constData());
            answered = true;
        }
        rc = ssh_userauth_kbdint(m_session, nullptr, nullptr);
    }
    if (rc == SSH_AUTH_SUCCESS) {
        m_method = QStringLiteral("keyboard-interactive");
        return true;
    }
    if (answered)
        m_notes << QStringLiteral("keyboard-interactive: the password was refused by the server");
    return false;
}

bool SshAuthenticator::tryPassword()
{
    const QByteArray *secret = password();
    if (!secret) {
        m_notes << (m_settings.password
                        ? QStringLiteral("password: none in the keychain or given")
                        : QStringLiteral("password: no password source is configured"));
        return false;
    }
    m_tried << QStringLiteral("password");
    if (ssh_userauth_password(m_session, nullptr, secret->constData()) != SSH_AUTH_SUCCESS) {
        m_notes << QStringLiteral("password: refused by the server");
        return false;
    }
    m_method = QStringLiteral("password");
    return true;
}

SshAuthenticator::Outcome SshAuthenticator::authenticate()
{
    Outcome outcome;
    m_tried << QStringLiteral("none");
    const int none = ssh_userauth_none(m_session, nullptr);
    if (none == SSH_AUTH_SUCCESS) {
        outcome.authenticated = true;
        outcome.method = QStringLiteral("none");
        return outcome;
    }
    if (none == SSH_AUTH_ERROR) {
        outcome.message = QStringLiteral("authentication with %1 failed: %2")
                              .arg(m_userAtHost, QString::fromUtf8(ssh_get_error(m_session)));
        return outcome;
    }
    const int allowed = ssh_userauth_list(m_session, nullptr);
    bool done = false;
    if (allowed & SSH_AUTH_METHOD_PUBLICKEY) {
        done = tryAgent();
        if (!done)
            done = m_settings.identityFiles.isEmpty() ? tryDefaultKeys() : tryKeyFiles();
    }
    if (!done && (allowed & SSH_AUTH_METHOD_INTERACTIVE))
        done = tryKeyboardInteractive();
    if (!done && (allowed & SSH_AUTH_METHOD_PASSWORD))
        done = tryPassword();
    wipePassword();
    if (done) {
        outcome.authenticated = true;
        outcome.method = m_method;
        spdlog::info("ssh: {} authenticated by {}", m_userAtHost.toStdString(),
                     m_method.toStdString());
        return outcome;
    }
    outcome.message =
        QStringLiteral("authentication failed for %1: tried %2; the server allows %3")
            .arg(m_userAtHost, m_tried.join(QStringLiteral(", ")), methodNames(allowed));
    for (const QString &note : std::as_const(m_notes))
        outcome.message += QStringLiteral("\n  ") + note;
    return outcome;
}

} // namespace opsdeck::remote
