#pragma once

#include <QStringList>

namespace opsdeck::cli {

/// `opsdeck-cli ssh HOST [--inventory F] [--ssh-config F] [--known-hosts F]
/// [--accept-new-host-key SHA256:..] [--identity F] [--timeout S] -- COMMAND...`
/// Runs one command through SshTransport; its stdout and stderr are copied
/// byte for byte. Exit: the remote exit code; 128+N when a signal killed it
/// (the shell's convention, so `$?` reads the same as running it locally);
/// 3 on a timeout or an unknown result; 4 when the host key is refused;
/// 1 when connecting or authenticating fails; 2 on bad input.
int runSsh(const QStringList &arguments);

} // namespace opsdeck::cli
