#pragma once

#include <QString>
#include <QStringList>
#include <optional>

namespace opsdeck::remote {

/// One GPU as `nvidia-smi --query-gpu=... --format=csv,noheader,nounits`
/// reported it (NvidiaSmiCsv). Units are nvidia-smi's own with `nounits`:
/// utilization in %, memory in MiB (nvidia-smi's "MiB", 1024 * 1024 bytes),
/// temperature in degrees C, power in W. A value nvidia-smi could not give
/// (`[N/A]`, `N/A`, `[Not Supported]`, `[Unknown Error]`...) is absent, never
/// 0: an idle GPU at 0 % and a GPU whose utilization is unknown must differ.
struct GpuSample
{
    int index = -1; ///< `index`, nvidia-smi's order (not CUDA_VISIBLE_DEVICES order); -1 unknown
    QString uuid;   ///< `uuid` (`GPU-...`), empty when not queried
    QString name;   ///< `name`, e.g. "NVIDIA H100 80GB HBM3"
    std::optional<double> utilizationPercent; ///< `utilization.gpu`, % of the last sample period
                                              ///< with a kernel running
    std::optional<double> memoryUsedMiB;      ///< `memory.used`, MiB
    std::optional<double> memoryTotalMiB;     ///< `memory.total`, MiB
    std::optional<double> memoryFreeMiB;      ///< `memory.free`, MiB
    std::optional<double> temperatureC;       ///< `temperature.gpu`, degrees C
    std::optional<double> powerDrawW;         ///< `power.draw`, W
    std::optional<double> powerLimitW;        ///< `power.limit`, W
    /// Fields nvidia-smi did not give, as "field: [Not Supported]", for a tooltip.
    QStringList unavailable;
};

} // namespace opsdeck::remote
