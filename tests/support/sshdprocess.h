#pragma once

#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <QVector>
#include <chrono>

namespace opsdeck::test {

/// A real OpenSSH server for one test, on 127.0.0.1 and a free port, with
/// everything in its own temp dir: an ed25519 host key, an authorized_keys
/// holding a fresh client key, sshd_config (UsePAM no, StrictModes no, public
/// keys only, PermitRootLogin prohibit-password since CI runs as root), pid
/// file and log (sshd's stderr goes to `sshd.log`, so a full pipe never stalls it).
/// The same dir holds a client side that never touches the real ~/.ssh:
/// `ssh_config` (Host alias `opsdeck-test` -> 127.0.0.1, the port, the user,
/// the client key, `known_hosts` of the dir), `known_hosts` with the host key,
/// and an empty `dotssh/` to use as the SSH directory.
/// The destructor stops sshd (SIGTERM, then SIGKILL after a deadline) and
/// every process it still has (the sessions' children).
class SshdProcess
{
public:
    SshdProcess() = default;
    SshdProcess(const SshdProcess &) = delete;
    SshdProcess &operator=(const SshdProcess &) = delete;
    ~SshdProcess();

    /// Log in as `user` instead of this process's user (the benchmark's
    /// throwaway account whose shell does no start-up work). Call before
    /// start(); the temp dir and authorized_keys become readable to that user.
    void setLoginUser(const QString &user) { m_loginUser = user; }
    /// What sshd lets a client log in with.
    enum class Authentication
    {
        PublicKey,           ///< the default: public keys only, UsePAM no
        Password,            ///< password only, through PAM (Debian's /etc/pam.d/sshd)
        KeyboardInteractive, ///< keyboard-interactive only, through PAM
        /// keyboard-interactive and password, both through PAM (no public keys)
        KeyboardInteractiveAndPassword
    };
    /// Call before start(). The PAM variants need a login user with a password
    /// in /etc/shadow (TestUser, testuser.h), never root, and sshd running as root.
    void setAuthentication(Authentication authentication) { m_authentication = authentication; }

    /// Runs sshd in a network namespace of its own (`unshare -n`, needs root)
    /// with `inside` (a shell command, e.g. an opsdeck-sim) beside it: a
    /// service on a network only the host reaches, as behind a real bastion.
    /// Clients still reach sshd at 127.0.0.1:port(), through a socat bridge
    /// (this network's port -> a Unix socket in the temp dir, which both
    /// networks see -> sshd's port inside). Call before start().
    void setPrivateNetwork(const QString &inside) { m_inside = inside; }

    /// The login name the generated ssh_config uses.
    QString loginUser() const { return m_loginUser.isEmpty() ? userName() : m_loginUser; }

    /// `extraConfig`: more sshd_config lines (e.g. "ChannelTimeout session:command=1s").
    /// Returns false (with the reason in errorText()) when sshd does not
    /// accept connections before `deadline`.
    bool start(const QString &extraConfig = {},
               std::chrono::milliseconds deadline = std::chrono::seconds(15));
    void stop();

    int port() const { return m_port; }
    qint64 pid() const { return m_process.processId(); }
    QString dir() const { return m_dir.path(); }
    QString path(const QString &name) const { return m_dir.filePath(name); }
    /// The alias the generated ssh_config gives this server.
    static QString alias() { return QStringLiteral("opsdeck-test"); }
    QString sshConfig() const { return path(QStringLiteral("ssh_config")); }
    QString knownHosts() const { return path(QStringLiteral("known_hosts")); }
    QString clientKey() const { return path(QStringLiteral("client_key")); }
    QString sshDirectory() const { return path(QStringLiteral("dotssh")); }
    /// The login name sshd will accept (this process's user).
    static QString userName();
    /// `[127.0.0.1]:PORT`, the known_hosts name of this server.
    QString hostEntry() const;
    /// `[127.0.0.1]:PORT ssh-ed25519 AAAA...`: the known_hosts line of the host key.
    QString knownHostsLine() const;
    /// The host key's `SHA256:...` as `ssh-keygen -l -E sha256` prints it.
    QString hostKeyFingerprint() const;
    /// sshd's log so far.
    QString errorText() const;
    /// Processes whose parent is sshd: one per client connection.
    QVector<qint64> connectionPids() const;

    /// Makes an unencrypted ed25519 key pair at `path` / `path.pub` (ssh-keygen).
    static bool generateKey(const QString &path);
    /// `SHA256:...` of a public key file (ssh-keygen -l -E sha256).
    static QString fingerprintOf(const QString &publicKeyFile);
    /// Direct children of `pid` (from /proc).
    static QVector<qint64> childPids(qint64 pid);

private:
    bool writeFiles(const QString &extraConfig);

    QTemporaryDir m_dir;
    bool launch();

    QProcess m_process;
    QProcess m_bridge; ///< with setPrivateNetwork(): this network's port -> the Unix socket
    QString m_inside;
    int m_port = 0;
    QString m_loginUser;
    Authentication m_authentication = Authentication::PublicKey;
};

} // namespace opsdeck::test
