#pragma once

// Settings that point SshTransport at a test sshd and only at files in its
// temp dir: never the real ~/.ssh, never an ssh-agent.
#include "sshdprocess.h"
#include "sshsettings.h"
#include "testsupport.h"

#include <QFile>
#include <QProcess>

namespace opsdeck::test {

inline remote::SshSettings sshSettings(const SshdProcess &sshd)
{
    remote::SshSettings settings;
    settings.host = SshdProcess::alias();
    settings.configFile = sshd.sshConfig();
    settings.knownHostsFile = sshd.knownHosts();
    settings.sshDirectory = sshd.sshDirectory();
    settings.identityFiles = {sshd.clientKey()};
    settings.useAgent = false;
    settings.connectTimeout = std::chrono::seconds(10);
    return settings;
}

/// Writes sshd's known_hosts so that its line 2 holds another key for this
/// host:port (a reinstalled host, or an attack); line 1 is some other host.
inline bool writeChangedHostKey(const SshdProcess &sshd)
{
    const QString other = sshd.path(QStringLiteral("other_host_key"));
    if (!SshdProcess::generateKey(other))
        return false;
    const QList<QByteArray> fields = readFile(other + QStringLiteral(".pub")).trimmed().split(' ');
    if (fields.size() < 2)
        return false;
    const QByteArray key = fields.at(0) + ' ' + fields.at(1) + '\n';
    return writeFile(sshd.knownHosts(),
                     "[127.0.0.1]:1 " + key + sshd.hostEntry().toUtf8() + ' ' + key);
}

/// True when some process's command line contains `pattern` (pgrep -f).
inline bool processMatching(const QString &pattern)
{
    QProcess pgrep;
    pgrep.start(QStringLiteral("pgrep"), {QStringLiteral("-f"), pattern});
    pgrep.waitForFinished(5000);
    return pgrep.exitStatus() == QProcess::NormalExit && pgrep.exitCode() == 0;
}

} // namespace opsdeck::test
