#pragma once

#include "processsample.h"
#include "serviceprocessquery.h"

#include <QStringList>
#include <QVector>

namespace opsdeck::remote {

/// The processes of one service on its host at one sample (HostSignalsScript).
struct ServiceProcesses
{
    /// What the pid file said.
    enum class PidFileState
    {
        NotConfigured, ///< the service has no pid file in the inventory
        Missing,       ///< no such file on the host
        Unreadable,    ///< exists but cannot be read (permissions)
        Invalid,       ///< empty or not a number (`pidFileText` holds its first 40 characters)
        NotRunning,    ///< names pid `pidFromFile`, which no process has
        Zombie,        ///< names a process that exited and was not reaped
        Running        ///< names a running process (the Main entry of `processes`)
    };

    ServiceProcessQuery query;
    PidFileState pidFileState = PidFileState::NotConfigured;
    qint64 pidFromFile = 0; ///< 0 when the file named no pid
    QString pidFileText;    ///< the file's text when Invalid
    /// Main first (when running), then its children (breadth first, at most 32),
    /// then processes found by `--port N`.
    QVector<ProcessSample> processes;

    const ProcessSample *mainProcess() const;
    /// Old instances: processes with the service's port that are not Main's.
    QVector<ProcessSample> oldInstances() const;
    /// What an on-call engineer must read, one sentence each:
    /// "pid file /run/decode.pid says 123 but it is not running",
    /// "old process 99 still running (same --port 30001, not the pid file's process)", ...
    QStringList notes() const;
};

} // namespace opsdeck::remote
