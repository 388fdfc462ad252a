#include "serviceprocesses.h"

namespace opsdeck::remote {

const ProcessSample *ServiceProcesses::mainProcess() const
{
    for (const auto &process : processes)
        if (process.kind == ProcessSample::Kind::Main)
            return &process;
    return nullptr;
}

QVector<ProcessSample> ServiceProcesses::oldInstances() const
{
    QVector<ProcessSample> old;
    for (const auto &process : processes)
        if (process.kind == ProcessSample::Kind::OldInstance)
            old.append(process);
    return old;
}

QStringList ServiceProcesses::notes() const
{
    QStringList notes;
    const QString file = query.pidFile;
    switch (pidFileState) {
    case PidFileState::NotConfigured:
        notes << QStringLiteral("no pid file in the inventory");
        break;
    case PidFileState::Missing:
        notes << QStringLiteral("pid file %1 does not exist").arg(file);
        break;
    case PidFileState::Unreadable:
        notes << QStringLiteral("pid file %1 cannot be read").arg(file);
        break;
    case PidFileState::Invalid:
        notes << QStringLiteral("pid file %1 holds no pid: \"%2\"").arg(file, pidFileText);
        break;
    case PidFileState::NotRunning:
        notes << QStringLiteral("pid file %1 says %2 but it is not running")
                     .arg(file)
                     .arg(pidFromFile);
        break;
    case PidFileState::Zombie:
        notes << QStringLiteral("pid file %1 says %2, which exited and was not reaped (zombie)")
                     .arg(file)
                     .arg(pidFromFile);
        break;
    case PidFileState::Running:
        break;
    }
    const ProcessSample *main = mainProcess();
    for (const auto &process : processes) {
        // "Old" only when it started before the pid file's process: one
        // started after it is a second instance, not a restart that is not over.
        const bool newer = main && main->startedAt.isValid() && process.startedAt.isValid() &&
                           process.startedAt > main->startedAt;
        if (process.kind == ProcessSample::Kind::OldInstance && newer)
            notes << QStringLiteral("another process %1 on the same --port %2 started after the "
                                    "pid file's process %3 (a second instance?)")
                         .arg(process.pid)
                         .arg(query.port)
                         .arg(main->pid);
        else if (process.kind == ProcessSample::Kind::OldInstance)
            notes << QStringLiteral("old process %1 still running (same --port %2, not the pid "
                                    "file's process)")
                         .arg(process.pid)
                         .arg(query.port);
        else if (process.kind != ProcessSample::Kind::Main && process.isZombie())
            notes << QStringLiteral("%1 process %2 is a zombie")
                         .arg(processKindName(process.kind))
                         .arg(process.pid);
    }
    return notes;
}

} // namespace opsdeck::remote
