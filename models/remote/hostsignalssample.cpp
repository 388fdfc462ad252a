#include "hostsignalssample.h"

namespace opsdeck::remote {

QString HostSignalsSample::gpuStatusText() const
{
    switch (gpuState) {
    case GpuState::Unknown:
        return error.isEmpty()
                   ? QStringLiteral("GPU signals of host %1 not sampled yet").arg(host)
                   : QStringLiteral("GPU signals of host %1 unknown: %2").arg(host, error);
    case GpuState::NoNvidiaSmi:
        return QStringLiteral("No nvidia-smi on host %1 \u2014 GPU signals unavailable").arg(host);
    case GpuState::Failed:
        return QStringLiteral("nvidia-smi failed on host %1: %2").arg(host, gpuError);
    case GpuState::Available:
        return gpus.isEmpty() ? QStringLiteral("nvidia-smi on host %1 lists no GPU").arg(host)
                              : QString();
    }
    return {};
}

} // namespace opsdeck::remote
