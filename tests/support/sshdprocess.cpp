#include "sshdprocess.h"

#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QTcpSocket>
#include <csignal>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opsdeck::test {

namespace {

bool writeText(const QString &path, const QByteArray &text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text) == text.size();
}

QByteArray readText(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Killing sshd's descendants too: a session's command must not outlive the test.
void killTree(qint64 pid, int signal)
{
    for (qint64 child : SshdProcess::childPids(pid))
        killTree(child, signal);
    ::kill(static_cast<pid_t>(pid), signal);
}

} // namespace

SshdProcess::~SshdProcess()
{
    stop();
}

QString SshdProcess::userName()
{
    const passwd *pw = ::getpwuid(::getuid());
    return pw ? QString::fromLocal8Bit(pw->pw_name) : QString();
}

QString SshdProcess::hostEntry() const
{
    return QStringLiteral("[127.0.0.1]:%1").arg(m_port);
}

QString SshdProcess::knownHostsLine() const
{
    const QList<QByteArray> fields =
        readText(path(QStringLiteral("host_key.pub"))).trimmed().split(' ');
    return QStringLiteral("%1 %2 %3")
        .arg(hostEntry(), QString::fromLatin1(fields.value(0)),
             QString::fromLatin1(fields.value(1)));
}

QString SshdProcess::hostKeyFingerprint() const
{
    return fingerprintOf(path(QStringLiteral("host_key.pub")));
}

QString SshdProcess::errorText() const
{
    return QString::fromUtf8(readText(path(QStringLiteral("sshd.log"))));
}

QVector<qint64> SshdProcess::childPids(qint64 pid)
{
    QVector<qint64> children;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString &entry : entries) {
        bool numeric = false;
        const qint64 candidate = entry.toLongLong(&numeric);
        if (!numeric)
            continue;
        // /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces.
        const QByteArray stat = readText(QStringLiteral("/proc/%1/stat").arg(candidate));
        const qsizetype close = stat.lastIndexOf(')');
        if (close < 0)
            continue;
        const QList<QByteArray> fields = stat.mid(close + 2).split(' ');
        if (fields.size() > 1 && fields.at(1).toLongLong() == pid)
            children << candidate;
    }
    return children;
}

QVector<qint64> SshdProcess::connectionPids() const
{
    return m_process.state() == QProcess::NotRunning ? QVector<qint64>() : childPids(pid());
}

bool SshdProcess::generateKey(const QString &path)
{
    QFile::remove(path);
    QFile::remove(path + QStringLiteral(".pub"));
    QProcess keygen;
    keygen.start(QStringLiteral("ssh-keygen"),
                 {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                  QStringLiteral("-N"), QString(), QStringLiteral("-C"),
                  QStringLiteral("opsdeck-test"), QStringLiteral("-f"), path});
    return keygen.waitForFinished(20000) && keygen.exitStatus() == QProcess::NormalExit &&
           keygen.exitCode() == 0;
}

QString SshdProcess::fingerprintOf(const QString &publicKeyFile)
{
    QProcess keygen;
    keygen.start(QStringLiteral("ssh-keygen"),
                 {QStringLiteral("-l"), QStringLiteral("-E"), QStringLiteral("sha256"),
                  QStringLiteral("-f"), publicKeyFile});
    if (!keygen.waitForFinished(20000) || keygen.exitCode() != 0)
        return {};
    // "256 SHA256:abc... comment (ED25519)"
    return QString::fromLatin1(keygen.readAllStandardOutput().split(' ').value(1));
}

bool SshdProcess::writeFiles(const QString &extraConfig)
{
    const QString user = loginUser();
    QDir(m_dir.path()).mkpath(QStringLiteral("dotssh"));
    // sshd keeps the first value of a keyword, so the variants are chosen here,
    // not through extraConfig.
    const bool publicKey = m_authentication == Authentication::PublicKey;
    const QString authentication =
        QStringLiteral("UsePAM %1\n"
                       "PubkeyAuthentication %2\n"
                       "PasswordAuthentication %3\n"
                       "KbdInteractiveAuthentication %4\n")
            .arg(publicKey ? u"no" : u"yes", publicKey ? u"yes" : u"no",
                 m_authentication == Authentication::Password ||
                         m_authentication == Authentication::KeyboardInteractiveAndPassword
                     ? u"yes"
                     : u"no",
                 m_authentication == Authentication::KeyboardInteractive ||
                         m_authentication == Authentication::KeyboardInteractiveAndPassword
                     ? u"yes"
                     : u"no");
    const QByteArray sshdConfig =
        QStringLiteral("Port %1\n"
                       "ListenAddress 127.0.0.1\n"
                       "HostKey %2\n"
                       "PidFile %3\n"
                       "AuthorizedKeysFile %4\n"
                       "%6"
                       "StrictModes no\n"
                       "PermitRootLogin prohibit-password\n"
                       "PrintMotd no\n"
                       "MaxStartups 200\n"
                       "LogLevel VERBOSE\n"
                       "Subsystem sftp /usr/lib/openssh/sftp-server\n"
                       // The remote shell's HOME is this folder, so bash (which
                       // sources ~/.bashrc under sshd) never runs the machine's
                       // own: a pyenv init there took a lock that a test killing
                       // a shell mid-start left behind, and every later command
                       // then waited 60 s for it.
                       "SetEnv HOME=%7\n"
                       "%5\n")
            .arg(m_port)
            .arg(path(QStringLiteral("host_key")), path(QStringLiteral("sshd.pid")),
                 path(QStringLiteral("authorized_keys")), extraConfig, authentication, m_dir.path())
            .toUtf8();
    const QByteArray clientConfig = QStringLiteral("Host %1\n"
                                                   "  HostName 127.0.0.1\n"
                                                   "  Port %2\n"
                                                   "  User %3\n"
                                                   "  IdentityFile %4\n"
                                                   "  IdentitiesOnly yes\n"
                                                   "  UserKnownHostsFile %5\n"
                                                   "  StrictHostKeyChecking yes\n"
                                                   "  BatchMode yes\n")
                                        .arg(alias())
                                        .arg(m_port)
                                        .arg(user, clientKey(), knownHosts())
                                        .toUtf8();
    return writeText(path(QStringLiteral("sshd_config")), sshdConfig) &&
           writeText(path(QStringLiteral("ssh_config")), clientConfig) &&
           writeText(knownHosts(), knownHostsLine().toUtf8() + '\n');
}

bool SshdProcess::start(const QString &extraConfig, std::chrono::milliseconds deadline)
{
    if (!m_dir.isValid())
        return false;
    // sshd as root wants its privilege separation directory; without systemd nobody makes it.
    if (::getuid() == 0)
        ::mkdir("/run/sshd", 0755);
    if (!generateKey(path(QStringLiteral("host_key"))) || !generateKey(clientKey()))
        return false;
    QFile::copy(clientKey() + QStringLiteral(".pub"), path(QStringLiteral("authorized_keys")));
    if (!m_loginUser.isEmpty()) {
        // sshd reads authorized_keys as the user logging in.
        ::chmod(QFile::encodeName(m_dir.path()).constData(), 0755);
        ::chmod(QFile::encodeName(path(QStringLiteral("authorized_keys"))).constData(), 0644);
    }

    // The port was free a moment ago; another process may take it first: retry.
    for (int attempt = 0; attempt < 3; ++attempt) {
        m_port = freeTcpPort();
        if (!writeFiles(extraConfig))
            return false;
        if (!launch())
            return false;
        // Up when sshd's banner comes (through the bridge, when there is one).
        const bool listening = waitUntil(
            [this] {
                if (m_process.state() == QProcess::NotRunning)
                    return true;
                QTcpSocket probe;
                probe.connectToHost(QStringLiteral("127.0.0.1"), static_cast<quint16>(m_port));
                return probe.waitForConnected(200) && probe.waitForReadyRead(500) &&
                       probe.readAll().startsWith("SSH-");
            },
            deadline);
        if (listening && m_process.state() == QProcess::Running)
            return true;
        stop();
    }
    return false;
}

bool SshdProcess::launch()
{
    m_process.setStandardErrorFile(path(QStringLiteral("sshd.log")), QIODevice::Append);
    m_process.setStandardOutputFile(QProcess::nullDevice());
    const QStringList sshd{QStringLiteral("/usr/sbin/sshd"), QStringLiteral("-D"),
                           QStringLiteral("-e"), QStringLiteral("-f"),
                           path(QStringLiteral("sshd_config"))};
    if (m_inside.isEmpty()) {
        m_process.start(sshd.first(), sshd.mid(1));
        return m_process.waitForStarted(5000);
    }
    // Inside the new network: loopback up, the service and the socket's far
    // end in the background, then sshd itself (exec: they stay its children,
    // so stop() ends them with it).
    const QString socket = path(QStringLiteral("sshd.sock"));
    QFile::remove(socket);
    const QString script = QStringLiteral("ip link set lo up || exit 1\n"
                                          "( %1 ) >'%2' 2>&1 &\n"
                                          "socat UNIX-LISTEN:'%3',fork TCP:127.0.0.1:%4 &\n"
                                          "exec %5\n")
                               .arg(m_inside, path(QStringLiteral("inside.log")), socket)
                               .arg(m_port)
                               .arg(sshd.join(u' '));
    m_process.start(QStringLiteral("unshare"),
                    {QStringLiteral("--net"), QStringLiteral("sh"), QStringLiteral("-c"), script});
    if (!m_process.waitForStarted(5000))
        return false;
    if (!waitUntil([&] { return QFile::exists(socket); }, std::chrono::seconds(10)))
        return false;
    m_bridge.setStandardOutputFile(QProcess::nullDevice());
    m_bridge.setStandardErrorFile(path(QStringLiteral("bridge.log")), QIODevice::Append);
    m_bridge.start(QStringLiteral("socat"),
                   {QStringLiteral("TCP-LISTEN:%1,bind=127.0.0.1,reuseaddr,fork").arg(m_port),
                    QStringLiteral("UNIX-CONNECT:%1").arg(socket)});
    return m_bridge.waitForStarted(5000);
}

void SshdProcess::stop()
{
    if (m_bridge.state() != QProcess::NotRunning) {
        // socat forks one child per connection: those first.
        for (qint64 child : childPids(m_bridge.processId()))
            ::kill(static_cast<pid_t>(child), SIGKILL);
        m_bridge.kill();
        m_bridge.waitForFinished(5000);
    }
    if (m_process.state() == QProcess::NotRunning)
        return;
    const qint64 listener = pid();
    for (qint64 child : childPids(listener))
        killTree(child, SIGKILL);
    ::kill(static_cast<pid_t>(listener), SIGTERM);
    if (!m_process.waitForFinished(5000)) {
        ::kill(static_cast<pid_t>(listener), SIGKILL);
        m_process.waitForFinished(5000);
    }
}

} // namespace opsdeck::test
