#include "servicestatus.h"

namespace opsdeck::probes {

QString stateName(ServiceState state)
{
    switch (state) {
    case ServiceState::Unknown:
        return QStringLiteral("unknown");
    case ServiceState::Down:
        return QStringLiteral("down");
    case ServiceState::Starting:
        return QStringLiteral("starting");
    case ServiceState::Healthy:
        return QStringLiteral("healthy");
    case ServiceState::Unhealthy:
        return QStringLiteral("unhealthy");
    }
    return QStringLiteral("unknown");
}

ServiceStatus ServiceStatus::unchecked(const inventory::Service &service)
{
    ServiceStatus status;
    status.name = service.name;
    status.role = service.role;
    status.url = service.directUrl.isEmpty() ? service.url : service.directUrl;
    status.via = service.via;
    if (!service.directUrl.isEmpty())
        status.tunnelUrl = service.url;
    return status;
}

ServiceState classifyHealth(ServiceState previous, int httpStatus)
{
    if (httpStatus == 0)
        return ServiceState::Down;
    if (httpStatus == 200)
        return ServiceState::Healthy;
    // SGLang answers 503 while it loads the model; once it has been healthy
    // a 503 means something went wrong, not that it is starting.
    if (httpStatus == 503 && (previous == ServiceState::Unknown || previous == ServiceState::Down ||
                              previous == ServiceState::Starting))
        return ServiceState::Starting;
    return ServiceState::Unhealthy;
}

} // namespace opsdeck::probes
