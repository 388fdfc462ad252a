#pragma once

#include <QDateTime>
#include <QString>

namespace opsdeck::remote {

/// One process seen on a host for a service (HostSignalsScript), read from
/// /proc/PID/stat, /proc/PID/status and /proc/PID/cmdline.
struct ProcessSample
{
    /// How the process relates to the service's pid file.
    enum class Kind
    {
        Main,       ///< the pid the pid file names
        Child,      ///< a descendant of Main (workers, or the server under a non-exec wrapper)
        Parent,     ///< an ancestor of Main that also carries the service's `--port N`
        OldInstance ///< carries the service's `--port N` but is not Main, nor its child or parent:
                    ///< typically the previous instance that has not exited yet
    };

    Kind kind = Kind::Main;
    qint64 pid = 0;
    qint64 parentPid = 0;
    /// The state letter of /proc/PID/stat: R running, S sleeping, D disk wait,
    /// T stopped, Z zombie (exited, not reaped by its parent).
    QChar state;
    /// Absolute start time, UTC: the host's boot time (`btime`, /proc/stat) plus
    /// the process's start in clock ticks since boot (/proc/PID/stat field 22)
    /// divided by the host's CLK_TCK. Resolution 1 s (btime is whole seconds).
    QDateTime startedAt;
    /// Seconds the process has run, by the host's own clock (so a skewed clock
    /// on this machine does not change it), s.
    qint64 uptimeSeconds = 0;
    /// Resident set size, bytes: VmRSS of /proc/PID/status (kB there, which the
    /// kernel means as KiB) times 1024. -1 when unknown (a zombie has none).
    qint64 rssBytes = -1;
    QString args; ///< command line, arguments joined with spaces (tabs and newlines as spaces)

    bool isZombie() const { return state == QLatin1Char('Z'); }
};

/// "main", "child", "parent" or "old instance".
QString processKindName(ProcessSample::Kind kind);
/// "up 45 s", "up 12 min", "up 2 h 3 min", "up 3 d 4 h" for `seconds` of uptime.
QString describeUptime(qint64 seconds);

} // namespace opsdeck::remote
