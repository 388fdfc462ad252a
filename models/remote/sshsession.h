#pragma once

#include "sshconnectionstate.h"
#include "sshsettings.h"

#include <functional>
#include <libssh/libssh.h>

namespace opsdeck::remote {

/// One libssh session: options from the OpenSSH client config and the
/// settings, connect, host key check (SshHostKeyCheck), authentication
/// (SshAuthenticator). libssh sessions are not thread-safe: create, use and
/// destroy one in a single thread (SshJobQueue's).
class SshSession
{
public:
    explicit SshSession(SshSettings settings);
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

private:
    SshConnectionState configure();

    SshSettings m_settings;
    ssh_session m_session = nullptr;
    QString m_label;
    QString m_hostEntry; ///< known_hosts name: host, or [host]:port
    QString m_knownHostsFile;
};

} // namespace opsdeck::remote
