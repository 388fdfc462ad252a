#include "managedprocess.h"

#include "shellquote.h"
namespace opsdeck::processes {

ManagedProcess ManagedProcess::fromService(const inventory::Service &service,
                                           const QString &program)
{
    ManagedProcess process;
    process.program = program;
    process.name = service.name;
    process.host = service.host;
    process.start = service.start;
    process.stop = service.stop;
    process.status = service.status;
    process.pidFile = service.pidFile;
    process.deriveMissingCommands();
    return process;
}

void ManagedProcess::deriveMissingCommands()
{
    if (pidFile.isEmpty())
        return;
    const QString pid =
        QStringLiteral("\"$(cat %1 2>/dev/null)\"").arg(shell::singleQuoted(pidFile));
    if (stop.isEmpty())
        stop = QStringLiteral("kill -TERM %1").arg(pid);
    if (kill.isEmpty())
        kill = QStringLiteral("kill -KILL %1").arg(pid);
    if (forget.isEmpty())
        forget = QStringLiteral("rm -f %1").arg(shell::singleQuoted(pidFile));
    if (status.isEmpty()) {
        // kill -0 alone also succeeds for a zombie that no parent has reaped
        // yet, and a container's init may never reap it: read its state too.
        status = QStringLiteral("p=%1; [ -n \"$p\" ] && [ -d /proc/$p ] && "
                                "! grep -qs '^State:[[:space:]]*Z' /proc/$p/status")
                     .arg(pid);
        if (!program.isEmpty())
            status += QStringLiteral(" && tr '\\0' ' ' </proc/$p/cmdline | grep -qF -- %1")
                          .arg(shell::singleQuoted(program));
    }
}

} // namespace opsdeck::processes
