#include "sshhostkeycheck.h"

#include <QFile>
#include <spdlog/spdlog.h>

namespace opsdeck::remote {

QString SshHostKeyCheck::outcomeName(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Matched:
        return QStringLiteral("matched");
    case Outcome::AcceptedNew:
        return QStringLiteral("accepted-new");
    case Outcome::RefusedUnknown:
        return QStringLiteral("refused-unknown");
    case Outcome::RefusedChanged:
        return QStringLiteral("refused-changed");
    case Outcome::Error:
        break;
    }
    return QStringLiteral("error");
}

QString SshHostKeyCheck::fingerprint(ssh_key key)
{
    unsigned char *hash = nullptr;
    size_t length = 0;
    if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &length) != SSH_OK)
        return {};
    char *text = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, length);
    ssh_clean_pubkey_hash(&hash);
    const QString result = text ? QString::fromLatin1(text) : QString();
    ssh_string_free_char(text);
    return result;
}

QStringList SshHostKeyCheck::matchingLines(const QString &file, const QString &hostEntry)
{
    QStringList lines;
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly))
        return lines;
    const QByteArray host = hostEntry.toUtf8();
    int number = 0;
    while (!in.atEnd()) {
        const QByteArray line = in.readLine().trimmed();
        ++number;
        // Markers (@cert-authority, @revoked) are not host lines libssh parses.
        if (line.isEmpty() || line.startsWith('#') || line.startsWith('@'))
            continue;
        ssh_knownhosts_entry *entry = nullptr;
        if (ssh_known_hosts_parse_line(host.constData(), line.constData(), &entry) == SSH_OK)
            lines << QStringLiteral("%1:%2").arg(file).arg(number);
        ssh_knownhosts_entry_free(entry);
    }
    return lines;
}

static QString changedMessage(const SshHostKeyCheck::Decision &d, const QString &hostEntry,
                              const QString &file, bool otherType)
{
    QString text =
        QStringLiteral("HOST KEY %1 for %2: the server presents %3 key %4, which is not the key "
                       "%5 holds for this host.\n"
                       "Someone may be intercepting the connection (man-in-the-middle attack), "
                       "or the host was reinstalled. Connection refused; there is no override.\n"
                       "Only after checking the new fingerprint out of band, remove the old "
                       "line(s):\n")
            .arg(otherType ? QStringLiteral("TYPE CHANGED") : QStringLiteral("CHANGED"), hostEntry,
                 d.keyType, d.fingerprint, file);
    const QStringList lines = SshHostKeyCheck::matchingLines(file, hostEntry);
    for (const QString &line : lines)
        text += QStringLiteral("  %1\n").arg(line);
    text += QStringLiteral("  (or: ssh-keygen -R '%1' -f '%2')\n"
                           "then connect again with --accept-new-host-key %3")
                .arg(hostEntry, file, d.fingerprint);
    return text;
}

SshHostKeyCheck::Decision SshHostKeyCheck::check(ssh_session session, const QString &hostEntry,
                                                 const QString &knownHostsFile,
                                                 const QString &acceptedFingerprint,
                                                 const BeforeSave &beforeSave)
{
    Decision d;
    ssh_key key = nullptr;
    if (ssh_get_server_publickey(session, &key) != SSH_OK) {
        d.message = QStringLiteral("host key of %1 could not be read: %2")
                        .arg(hostEntry, QString::fromUtf8(ssh_get_error(session)));
        spdlog::error("host key: {}", d.message.toStdString());
        return d;
    }
    d.keyType = QString::fromLatin1(ssh_key_type_to_char(ssh_key_type(key)));
    d.fingerprint = fingerprint(key);
    ssh_key_free(key);

    const std::string who = hostEntry.toStdString();
    const std::string print = d.fingerprint.toStdString();
    const ssh_known_hosts_e known = ssh_session_is_known_server(session);
    switch (known) {
    case SSH_KNOWN_HOSTS_OK:
        d.outcome = Outcome::Matched;
        d.trusted = true;
        spdlog::info("host key: {} {} {} matches {}", who, d.keyType.toStdString(), print,
                     knownHostsFile.toStdString());
        return d;
    case SSH_KNOWN_HOSTS_CHANGED:
    case SSH_KNOWN_HOSTS_OTHER:
        d.outcome = Outcome::RefusedChanged;
        d.message = changedMessage(d, hostEntry, knownHostsFile, known == SSH_KNOWN_HOSTS_OTHER);
        spdlog::error("host key: REFUSED changed key for {} ({}): possible attack", who, print);
        return d;
    case SSH_KNOWN_HOSTS_UNKNOWN:
    case SSH_KNOWN_HOSTS_NOT_FOUND:
        break;
    case SSH_KNOWN_HOSTS_ERROR:
        d.message = QStringLiteral("host key of %1 could not be checked against %2: %3")
                        .arg(hostEntry, knownHostsFile, QString::fromUtf8(ssh_get_error(session)));
        spdlog::error("host key: {}", d.message.toStdString());
        return d;
    }

    if (acceptedFingerprint.isEmpty() || acceptedFingerprint != d.fingerprint) {
        d.outcome = Outcome::RefusedUnknown;
        d.message = QStringLiteral("unknown host key for %1: %2 %3 (not in %4). Refused.\n")
                        .arg(hostEntry, d.keyType, d.fingerprint, knownHostsFile);
        if (!acceptedFingerprint.isEmpty())
            d.message += QStringLiteral("The fingerprint given (%1) is not the server's.\n")
                             .arg(acceptedFingerprint);
        d.message += QStringLiteral("Check the fingerprint out of band (on the host: ssh-keygen "
                                    "-l -f /etc/ssh/ssh_host_*_key.pub), then accept it in the "
                                    "window's dialog, or with opsdeck-cli ssh HOST "
                                    "--accept-new-host-key %1 -- true")
                         .arg(d.fingerprint);
        spdlog::warn("host key: refused unknown key for {} ({})", who, print);
        return d;
    }
    Decision accepting = d;
    accepting.outcome = Outcome::AcceptedNew;
    accepting.trusted = true;
    QString why;
    if (beforeSave && !beforeSave(accepting, &why)) {
        d.message = QStringLiteral("host key %1 of %2 was not accepted: %3. Nothing was saved "
                                   "to %4.")
                        .arg(d.fingerprint, hostEntry, why, knownHostsFile);
        spdlog::error("host key: {}", d.message.toStdString());
        return d;
    }
    if (ssh_session_update_known_hosts(session) != SSH_OK) {
        d.message = QStringLiteral("host key %1 of %2 was accepted but could not be saved to "
                                   "%3: %4")
                        .arg(d.fingerprint, hostEntry, knownHostsFile,
                             QString::fromUtf8(ssh_get_error(session)));
        spdlog::error("host key: {}", d.message.toStdString());
        return d;
    }
    d.outcome = Outcome::AcceptedNew;
    d.trusted = true;
    spdlog::warn("host key: accepted new key for {} ({} {}) by the given fingerprint; saved to {}",
                 who, d.keyType.toStdString(), print, knownHostsFile.toStdString());
    return d;
}

} // namespace opsdeck::remote
