#pragma once

#include "hostsignalssample.h"
#include "serviceprocessquery.h"

#include <QByteArray>
#include <QString>
#include <QVector>

namespace opsdeck::remote {

/// The one bash script HostSignals runs on a host per poll, and the parser of
/// its output. Pure, any thread.
///
/// The script (bash 4.4+ for `mapfile -d ''`; LC_ALL=C) prints tab-separated
/// records:
/// - `@@clock NOW BTIME HZ`: the host's time (s since the epoch), its boot time
///   (`btime` of /proc/stat) and CLK_TCK, to turn start ticks into UTC times;
/// - `@@gpu none` when `command -v nvidia-smi` finds nothing, else `@@gpu exit RC`,
///   nvidia-smi's output (NvidiaSmiCsv::defaultCommand(), stderr merged, run under
///   `timeout S` so a hung driver cannot hold the session), then `@@gpu-end`;
/// - per service: `@@service I`, `@@pidfile none|missing|unreadable|invalid TEXT|pid N`,
///   then `@@proc KIND PID PPID STATE START_TICKS RSS_KB ANCESTORS ARGS` for the
///   pid file's process (`main`), its descendants (`child`, breadth first, at most 32)
///   and every other process whose arguments say `--port N` / `--port=N` (`port`).
///
/// Processes are read from /proc (stat, status, cmdline), not `ps`: slim
/// container images that serve models often lack procps, /proc needs no
/// locale, and its start ticks give an absolute, unambiguous start time
/// (`ps -o lstart` prints local time in the host's locale and zone).
class HostSignalsScript
{
public:
    /// The script for `services`, asking nvidia-smi for `gpuFields`
    /// (NvidiaSmiCsv::defaultFields() unless a test or an old driver needs
    /// others); nvidia-smi is killed after `nvidiaSmiTimeoutS` s.
    static QString script(const QVector<ServiceProcessQuery> &services,
                          const QStringList &gpuFields, int nvidiaSmiTimeoutS);

    /// Reads the script's stdout. Records it does not know are skipped; a
    /// missing `@@clock` or a service record without its query is an error in
    /// the sample's `error`. `sampledAt` and `elapsedMs` are left to the caller.
    static HostSignalsSample parse(const QByteArray &output, const QString &host,
                                   const QVector<ServiceProcessQuery> &services,
                                   const QStringList &gpuFields, int nvidiaSmiTimeoutS);
};

} // namespace opsdeck::remote
