#pragma once

#include "gpusample.h"
#include "serviceprocesses.h"

#include <QDateTime>
#include <QVector>

namespace opsdeck::remote {

/// One poll of a host by HostSignals: its GPUs and its services' processes.
/// Plain data; copied into signals.
struct HostSignalsSample
{
    /// What is known about the host's GPUs.
    enum class GpuState
    {
        Unknown,     ///< not sampled yet, or the poll itself failed (`error`)
        NoNvidiaSmi, ///< `command -v nvidia-smi` found nothing: GPU signals unavailable
        Failed,      ///< nvidia-smi ran and failed (`gpuError`: its message, e.g. the driver is not
                     ///< loaded)
        Available    ///< `gpus` holds one entry per GPU (possibly none)
    };

    QString host;         ///< inventory host name
    QDateTime sampledAt;  ///< when the result arrived, this machine's clock, UTC
    qint64 elapsedMs = 0; ///< how long the poll command took, ms
    GpuState gpuState = GpuState::Unknown;
    QVector<GpuSample> gpus;
    QString gpuError;                   ///< nvidia-smi's message or a parse error naming the line
    QStringList gpuWarnings;            ///< nvidia-smi's WARNING: lines
    QVector<ServiceProcesses> services; ///< in the order of the queries
    /// The poll failed as a whole (timed out, connection failed, unknown result):
    /// names the host and why. GPU and process data are then empty.
    QString error;

    bool ok() const { return error.isEmpty(); }
    /// "No nvidia-smi on host gpu-3 — GPU signals unavailable" and the like; empty when Available.
    QString gpuStatusText() const;
};

} // namespace opsdeck::remote
