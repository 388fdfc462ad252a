#pragma once

#include "sshconnectionstate.h"
#include "sshjump.h"
#include "sshsettings.h"

#include <functional>
#include <libssh/libssh.h>
#include <memory>

namespace opsdeck::remote {

/// One libssh session: options from the OpenSSH client config and the
/// settings, connect, host key check (SshHostKeyCheck), authentication
/// (SshAuthenticator). libssh sessions are not thread-safe: create, use and
/// destroy one in a single thread (SshJobQueue's).
/// A ProxyJump in the ssh config is done here (SshJump: a session to the jump
/// host in its own thread and a forwarded channel); a ProxyCommand is refused.
class SshSession
{
public:
    /// `jumpDepth`: how many jump hosts lead to this one (0 for the host
    /// itself); deeper than maxJumpDepth is refused as a loop in the config.
    explicit SshSession(SshSettings settings, int jumpDepth = 0);
    ~SshSession();
    SshSession(const SshSession &) = delete;
    SshSession &operator=(const SshSession &) = delete;

    /// Connects and authenticates; `progress` hears Connecting and
    /// Authenticating. Returns Connected, or Failed with the failure and a
    /// reason for the operator. Blocks up to the connect timeout per step.
    SshConnectionState open(const std::function<void(const SshConnectionState &)> &progress);
    /// True while the TCP connection and the session are up.
    bool isConnected() const;
    /// Disconnects and frees the session; open() may be called again.
    void close();

    ssh_session handle() const { return m_session; }
    /// `user@host:port` after open() read the config, for messages.
    QString label() const { return m_label; }

    static constexpr int maxJumpDepth = 4;

private:
    SshConnectionState configure();
    SshConnectionState connectThroughJump();
    void closeJumpSocket();

    SshSettings m_settings;
    ssh_session m_session = nullptr;
    QString m_label;
    QString m_hostEntry; ///< known_hosts name: host, or [host]:port
    QString m_knownHostsFile;
    int m_jumpDepth = 0;
    std::optional<SshJump::Hop> m_jumpHop; ///< the config's ProxyJump; nullopt: direct
    std::unique_ptr<SshJump> m_jump;       ///< set while connected through a jump host
    int m_jumpFd = -1;                     ///< our end of the jump's socketpair, given to libssh
    unsigned long m_jumpFdInode = 0;       ///< its inode, to know it is still ours
};

} // namespace opsdeck::remote
