#include "sshpaths.h"

#include <QFile>
#include <pwd.h>
#include <unistd.h>
#include <vector>

namespace opsdeck::remote {

QString SshPaths::userHome()
{
    // getpwuid_r: getpwuid's static buffer is shared with every other thread.
    long size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
    std::vector<char> buffer(static_cast<size_t>(size > 0 ? size : 16384));
    passwd entry{};
    passwd *found = nullptr;
    if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found &&
        found->pw_dir && *found->pw_dir)
        return QFile::decodeName(found->pw_dir);
    return QFile::decodeName(qgetenv("HOME"));
}

QString SshPaths::sshDirectory(const SshSettings &settings)
{
    if (!settings.sshDirectory.isEmpty())
        return settings.sshDirectory;
    const QString home = userHome();
    return home.isEmpty() ? QString() : home + QStringLiteral("/.ssh");
}

QString SshPaths::configFile(const SshSettings &settings)
{
    if (!settings.configFile.isEmpty())
        return settings.configFile;
    const QString directory = sshDirectory(settings);
    return directory.isEmpty() ? QString() : directory + QStringLiteral("/config");
}

QString SshPaths::knownHostsFile(const SshSettings &settings)
{
    if (!settings.knownHostsFile.isEmpty())
        return settings.knownHostsFile;
    const QString directory = sshDirectory(settings);
    return directory.isEmpty() ? QString() : directory + QStringLiteral("/known_hosts");
}

QString SshPaths::expandTilde(const QString &path)
{
    if (path != u"~" && !path.startsWith(QStringLiteral("~/")))
        return path;
    const QString home = userHome();
    return home.isEmpty() ? path : home + path.mid(1);
}

} // namespace opsdeck::remote
