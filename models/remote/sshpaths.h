#pragma once

#include "sshsettings.h"

#include <QString>

namespace opsdeck::remote {

/// Where the OpenSSH client files are when SshSettings does not name them.
/// The SSH directory is `.ssh` in the home directory the password database
/// gives this process's user (getpwuid(getuid())), as OpenSSH's ssh does:
/// not `$HOME`, which sudo, su or a service manager may leave pointing at
/// another user's home. SshSession sets this directory on every libssh
/// session, so OpsDeck does not depend on which of the two libssh prefers.
/// Any thread.
class SshPaths
{
public:
    /// The home directory of the password database entry of getuid(); when
    /// there is none (a container started with an arbitrary uid) `$HOME`, as
    /// libssh does; empty when neither is set.
    static QString userHome();
    /// `settings.sshDirectory`, else `<userHome()>/.ssh`; empty when no home is known.
    static QString sshDirectory(const SshSettings &settings);
    /// The client config read for `settings`: `settings.configFile`, else
    /// `<sshDirectory()>/config` (then /etc/ssh/ssh_config too).
    static QString configFile(const SshSettings &settings);
    /// The known_hosts used for `settings` unless the config's
    /// UserKnownHostsFile names another: `settings.knownHostsFile` (which beats
    /// the config), else `<sshDirectory()>/known_hosts`.
    static QString knownHostsFile(const SshSettings &settings);
    /// `path` with a leading `~/` (or a lone `~`) replaced by userHome(), as
    /// OpenSSH expands paths in its config; any other path (or any path when
    /// no home is known) unchanged.
    static QString expandTilde(const QString &path);
};

} // namespace opsdeck::remote
