#include "privatelock.h"

#include "privatefiles.h"

#include <QFile>
#include <QFileInfo>
#include <sys/stat.h>

namespace opsdeck::settings {

PrivateLock::PrivateLock(const QString &lockPath) : m_path(lockPath), m_lock(lockPath) {}

bool PrivateLock::take(int waitMs, QString *error)
{
    auto fail = [&](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    QString why;
    if (!PrivateFiles::refuseLink(m_path, &why))
        return fail(why);
    // QLockFile would take something else under that name for a lock it
    // cannot read and retry until the timeout, then blame another process.
    const QFileInfo info(m_path);
    if (info.exists() && !info.isFile())
        return fail(QStringLiteral("its lock file %1 is not a file").arg(m_path));
    if (!m_lock.tryLock(waitMs)) {
        if (m_lock.error() == QLockFile::LockFailedError) {
            // A stopped (SIGSTOP, a debugger) or hung OpsDeck holds it: name
            // it, so that the person can find it instead of guessing.
            qint64 pid = 0;
            QString hostName;
            QString program;
            const QString holder =
                m_lock.getLockInfo(&pid, &hostName, &program)
                    ? QStringLiteral("%1 (pid %2 on %3)")
                          .arg(program.isEmpty() ? QStringLiteral("a process") : program)
                          .arg(pid)
                          .arg(hostName)
                    : QStringLiteral("another process");
            return fail(QStringLiteral("locked by %1 for over %2 s (%3): is it stopped or hung?")
                            .arg(holder)
                            .arg(waitMs / 1000)
                            .arg(m_path));
        }
        return fail(QStringLiteral("cannot create its lock file %1 (%2)")
                        .arg(m_path, m_lock.error() == QLockFile::PermissionError
                                         ? QStringLiteral("permission denied")
                                         : QStringLiteral("unknown error")));
    }
    // QLockFile creates it 0666 less the umask.
    ::chmod(QFile::encodeName(m_path).constData(), 0600);
    return true;
}

} // namespace opsdeck::settings
