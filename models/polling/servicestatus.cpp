#include "servicestatus.h"

#include "probe.h"

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
    case ServiceState::Unresponsive:
        return QStringLiteral("unresponsive");
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

bool acceptedWithoutAnswer(const ProbeResult &result)
{
    // A kept-alive connection was accepted when it was opened (connectMs is 0 then).
    return result.status == 0 && result.timedOut &&
           (result.connectMs > 0 || result.connectionReused);
}

ServiceState classifyHealth(ServiceState previous, int httpStatus, bool accepted)
{
    if (httpStatus == 0)
        return accepted ? ServiceState::Unresponsive : ServiceState::Down;
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
