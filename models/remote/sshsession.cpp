#include "sshsession.h"

#include "sshauthenticator.h"
#include "sshhostkeycheck.h"
#include "sshpaths.h"

#include <QDir>
#include <QFileInfo>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opsdeck::remote {

namespace {

SshConnectionState failed(SshConnectionState::Failure failure, QString reason)
{
    SshConnectionState state;
    state.phase = SshConnectionState::Phase::Failed;
    state.failure = failure;
    state.reason = std::move(reason);
    return state;
}

QString stringOption(ssh_session session, ssh_options_e option)
{
    char *value = nullptr;
    if (ssh_options_get(session, option, &value) != SSH_OK || !value)
        return {};
    const QString text = QString::fromUtf8(value);
    ssh_string_free_char(value);
    return text;
}

} // namespace

SshSession::SshSession(SshSettings settings, int jumpDepth)
    : m_settings(std::move(settings)), m_jumpDepth(jumpDepth)
{
}

SshSession::~SshSession()
{
    close();
}

bool SshSession::isConnected() const
{
    return m_session && ssh_is_connected(m_session);
}

void SshSession::close()
{
    if (!m_session)
        return;
    if (ssh_is_connected(m_session))
        ssh_disconnect(m_session);
    ssh_free(m_session);
    m_session = nullptr;
    closeJumpSocket(); // the jump's pump sees EOF and ends
    m_jump.reset();
}

SshConnectionState SshSession::configure()
{
    using Failure = SshConnectionState::Failure;
    const QByteArray host = m_settings.host.toUtf8();
    if (host.isEmpty())
        return failed(Failure::Config, QStringLiteral("no host given"));
    // Set even when the settings leave it empty: the password database's home
    // (SshPaths), whichever of it and $HOME this libssh would pick.
    if (const QString sshDirectory = SshPaths::sshDirectory(m_settings); !sshDirectory.isEmpty())
        ssh_options_set(m_session, SSH_OPTIONS_SSH_DIR,
                        QFile::encodeName(sshDirectory).constData());
    // libssh refuses a name that is no host name (a space, ":22"); the
    // config parse would then fail with a message blaming the config file.
    if (ssh_options_set(m_session, SSH_OPTIONS_HOST, host.constData()) < 0)
        return failed(Failure::Config,
                      QStringLiteral("bad host name '%1': %2")
                          .arg(m_settings.host, QString::fromUtf8(ssh_get_error(m_session))));

    // A missing default config is normal; a named one must exist (as ssh -F).
    if (!m_settings.configFile.isEmpty() && !QFileInfo(m_settings.configFile).isReadable())
        return failed(
            Failure::Config,
            QStringLiteral("ssh config %1: not a readable file").arg(m_settings.configFile));
    // libssh reads both files in this thread: a FIFO (or a device) named by
    // mistake would block it, and the host's queue with it, for ever.
    const std::pair<QString, QString> namedFiles[] = {
        {QStringLiteral("ssh config"), m_settings.configFile},
        {QStringLiteral("known_hosts"), m_settings.knownHostsFile}};
    for (const auto &[what, file] : namedFiles) {
        const QFileInfo info(file);
        if (!file.isEmpty() && info.exists() && !info.isFile())
            return failed(Failure::Config,
                          QStringLiteral("%1 %2: not a regular file").arg(what, file));
        // libssh treats an unreadable known_hosts as empty: every key would be
        // "unknown", with the advice to accept it again.
        if (!file.isEmpty() && info.exists() && !info.isReadable())
            return failed(Failure::Config, QStringLiteral("%1 %2: not readable").arg(what, file));
    }
    const QByteArray configFile = QFile::encodeName(m_settings.configFile);
    if (ssh_options_parse_config(m_session,
                                 configFile.isEmpty() ? nullptr : configFile.constData()) < 0)
        return failed(Failure::Config, QStringLiteral("ssh config %1: %2")
                                           .arg(SshPaths::configFile(m_settings),
                                                QString::fromUtf8(ssh_get_error(m_session))));

    // libssh 0.10 turns ProxyJump into ProxyCommand "ssh -W '[%h]:%p' JUMP",
    // i.e. it would run the ssh binary, whose host-key checks, keys and audit
    // are not ours: read the hop back and do the jump ourselves (SshJump).
    const QString proxy = stringOption(m_session, SSH_OPTIONS_PROXYCOMMAND);
    m_jumpHop.reset();
    if (!proxy.isEmpty() && proxy != u"none") {
        ssh_options_set(m_session, SSH_OPTIONS_PROXYCOMMAND, "none");
        QString more;
        m_jumpHop = SshJump::fromProxyCommand(proxy, &more);
        if (!m_jumpHop)
            return failed(Failure::Config,
                          QStringLiteral("host %1: ProxyCommand is not supported (the ssh config "
                                         "gives ProxyCommand %2); use ProxyJump")
                              .arg(m_settings.host, proxy));
        // libssh 0.10 reverses the order of a hop list, so which hop comes
        // first cannot be known from what it gives back.
        if (!more.isEmpty())
            return failed(Failure::Config,
                          QStringLiteral("host %1: a ProxyJump with several hops (%2, %3) is not "
                                         "supported; write one hop per host instead: the host "
                                         "next to %1 gets ProxyJump <the hop before it> in its "
                                         "own Host entry")
                              .arg(m_settings.host, m_jumpHop->host, more));
        if (m_jumpDepth >= maxJumpDepth)
            return failed(Failure::Config,
                          QStringLiteral("host %1: more than %2 ProxyJump hops (a loop in the ssh "
                                         "config? e.g. a 'Host *' ProxyJump that matches the jump "
                                         "host itself)")
                              .arg(m_settings.host)
                              .arg(maxJumpDepth));
    }

    // The settings (inventory address, port, user) beat the config, as
    // ssh's command line does.
    if (!m_settings.address.isEmpty())
        ssh_options_set(m_session, SSH_OPTIONS_HOST, m_settings.address.toUtf8().constData());
    if (m_settings.port > 0) {
        const unsigned int port = static_cast<unsigned int>(m_settings.port);
        ssh_options_set(m_session, SSH_OPTIONS_PORT, &port);
    }
    if (!m_settings.user.isEmpty())
        ssh_options_set(m_session, SSH_OPTIONS_USER, m_settings.user.toUtf8().constData());
    if (!m_settings.knownHostsFile.isEmpty())
        ssh_options_set(m_session, SSH_OPTIONS_KNOWNHOSTS,
                        QFile::encodeName(m_settings.knownHostsFile).constData());
    // Commands are short request/reply exchanges: without TCP_NODELAY, Nagle
    // plus delayed ACKs add ~40 ms to each (the exec request and the EOF
    // right after it), as OpenSSH also avoids for its sessions.
    const int noDelay = 1;
    ssh_options_set(m_session, SSH_OPTIONS_NODELAY, &noDelay);
    const long timeoutUsec = static_cast<long>(m_settings.connectTimeout.count()) * 1000;
    ssh_options_set(m_session, SSH_OPTIONS_TIMEOUT_USEC, &timeoutUsec);
    return {};
}

SshConnectionState SshSession::connectThroughJump()
{
    // The jump host is reached as ssh would reach `ProxyJump [user@]host[:port]`:
    // its own config entry, same files and keys, nothing of the target's
    // overrides; the target's accepted fingerprint is not the jump host's.
    SshSettings jumpSettings = m_settings;
    jumpSettings.host = m_jumpHop->host;
    jumpSettings.address.clear();
    jumpSettings.port = m_jumpHop->port;
    jumpSettings.user = m_jumpHop->user;
    jumpSettings.acceptedFingerprint.clear();
    if (m_settings.hostKeyDecided)
        jumpSettings.hostKeyDecided =
            [report = m_settings.hostKeyDecided](const HostKeyDecision &decision, QString *error) {
                HostKeyDecision hop = decision;
                hop.jumpHost = true;
                return report(hop, error);
            };
    m_jump = std::make_unique<SshJump>(std::move(jumpSettings), m_jumpDepth + 1);
    unsigned int port = 22;
    ssh_options_get_port(m_session, &port);
    int fd = -1;
    const SshConnectionState state =
        m_jump->open(stringOption(m_session, SSH_OPTIONS_HOST), static_cast<int>(port), &fd);
    if (state.phase != SshConnectionState::Phase::Connected)
        return failed(
            state.failure,
            QStringLiteral("host %1 (via ProxyJump): %2").arg(m_settings.host, state.reason));
    ssh_options_set(m_session, SSH_OPTIONS_FD, &fd);
    struct stat status
    {
    };
    m_jumpFd = fd;
    m_jumpFdInode = ::fstat(fd, &status) == 0 ? status.st_ino : 0;
    return state;
}

void SshSession::closeJumpSocket()
{
    // libssh 0.10 leaves a socket given with SSH_OPTIONS_FD open after
    // ssh_free (measured: one socket per session leaked). Close it only if
    // the number still names our socket, in case a libssh path closed it and
    // the number was reused.
    if (m_jumpFd < 0)
        return;
    struct stat status
    {
    };
    if (::fstat(m_jumpFd, &status) == 0 && S_ISSOCK(status.st_mode) &&
        status.st_ino == m_jumpFdInode)
        ::close(m_jumpFd);
    m_jumpFd = -1;
}

SshConnectionState SshSession::open(const std::function<void(const SshConnectionState &)> &progress)
{
    using Failure = SshConnectionState::Failure;
    close();
    m_session = ssh_new();
    if (!m_session)
        return failed(Failure::Connect, QStringLiteral("libssh could not create a session"));
    SshConnectionState configured = configure();
    if (configured.phase == SshConnectionState::Phase::Failed)
        return configured;

    progress({SshConnectionState::Phase::Connecting, Failure::None, {}});
    const QString address = stringOption(m_session, SSH_OPTIONS_HOST);
    unsigned int port = 22;
    ssh_options_get_port(m_session, &port);
    m_hostEntry = port == 22 ? address : QStringLiteral("[%1]:%2").arg(address).arg(port);
    if (m_jumpHop) {
        SshConnectionState jumped = connectThroughJump();
        if (jumped.phase == SshConnectionState::Phase::Failed) {
            close();
            return jumped;
        }
    }
    if (ssh_connect(m_session) != SSH_OK) {
        QString error = QString::fromUtf8(ssh_get_error(m_session)).trimmed();
        // libssh gives no text when the peer closes or answers garbage after its banner.
        if (error.isEmpty())
            error = QStringLiteral("the server closed the connection or did not answer as an "
                                   "SSH server");
        close();
        return failed(Failure::Connect, QStringLiteral("cannot connect to %1 (host %2): %3")
                                            .arg(m_hostEntry, m_settings.host, error));
    }
    // After connect the user and the known_hosts path are expanded.
    const QString user = stringOption(m_session, SSH_OPTIONS_USER);
    m_label = QStringLiteral("%1@%2").arg(user, m_hostEntry);
    if (m_jump)
        m_label += QStringLiteral(" via ") + m_jump->label();
    m_knownHostsFile = stringOption(m_session, SSH_OPTIONS_KNOWNHOSTS);
    if (m_knownHostsFile.isEmpty())
        m_knownHostsFile = m_settings.knownHostsFile;

    const auto tell = [this](const SshHostKeyCheck::Decision &key, QString *error) {
        return !m_settings.hostKeyDecided ||
               m_settings.hostKeyDecided({m_settings.host, m_hostEntry,
                                          SshHostKeyCheck::outcomeName(key.outcome), key.keyType,
                                          key.fingerprint, m_knownHostsFile, key.message, false},
                                         error);
    };
    // An acceptance is recorded before the key is saved (told there); other
    // decisions change nothing and are told after.
    const SshHostKeyCheck::Decision key = SshHostKeyCheck::check(
        m_session, m_hostEntry, m_knownHostsFile, m_settings.acceptedFingerprint, tell);
    if (key.outcome != SshHostKeyCheck::Outcome::AcceptedNew) {
        QString ignored; // a refusal not recorded is still a refusal; the auditor logs it
        tell(key, &ignored);
    }
    if (!key.trusted) {
        close();
        SshConnectionState refused = failed(Failure::HostKeyRefused, key.message);
        refused.hostKeyType = key.keyType;
        refused.hostKeyFingerprint = key.fingerprint;
        refused.hostEntry = m_hostEntry;
        refused.hostKeyUnknown = key.outcome == SshHostKeyCheck::Outcome::RefusedUnknown;
        return refused;
    }

    progress({SshConnectionState::Phase::Authenticating, Failure::None, {}});
    SshAuthenticator authenticator(m_session, m_settings, m_label);
    const SshAuthenticator::Outcome auth = authenticator.authenticate();
    if (!auth.authenticated) {
        close();
        return failed(Failure::Auth, auth.message);
    }
    spdlog::info("ssh: connected to {} ({})", m_label.toStdString(), auth.method.toStdString());
    return {SshConnectionState::Phase::Connected, Failure::None, {}};
}

} // namespace opsdeck::remote
