#pragma once

#include "inventory.h"

#include <QDateTime>
#include <QMetaType>
#include <QString>
#include <optional>

namespace opsdeck::probes {

/// A service's state as observed by polling its health URL (DESIGN.md):
/// Unknown      not yet polled, or its host is unreachable;
/// Down         nothing accepted the connection (refused, reset before it was
///              accepted, unreachable, the connect timed out);
/// Starting     503 before the first 200 after it was down or unknown;
/// Healthy      200;
/// Unhealthy    any other answer (including 503 after it had been healthy);
/// Unresponsive the connection was accepted but no answer came in time. For a
///              proxy or router whose health check is forwarded upstream, the
///              silence may be upstream's (a pooled upstream connection that stalls).
enum class ServiceState
{
    Unknown,
    Down,
    Starting,
    Healthy,
    Unhealthy,
    Unresponsive
};

/// "unknown", "down", "starting", "healthy", "unhealthy", "unresponsive" (also
/// the CLI's JSON values).
QString stateName(ServiceState state);

/// Result of one health check, classified against the previous state.
/// `httpStatus` is 0 when no HTTP answer came; then `accepted` tells an
/// unresponsive service (its connection was accepted and the check timed out)
/// from a down one.
ServiceState classifyHealth(ServiceState previous, int httpStatus, bool accepted = false);

/// True when a health probe timed out after its connection was accepted
/// (curl's time_connect was reached): the service is there but silent.
bool acceptedWithoutAnswer(const struct ProbeResult &result);

/// What the console knows about one service after its latest health check.
/// Plain data, copied from the poller's thread to the GUI thread.
struct ServiceStatus
{
    QString name;
    inventory::Role role = inventory::Role::Engine;
    QUrl url; ///< as the inventory gives it (for a tunnelled service: as its `via` host sees it)
    /// The inventory's `via` host when the service is reached through an SSH
    /// tunnel (then `tunnelUrl` is the local end actually requested); empty: direct.
    QString via;
    QUrl tunnelUrl;
    ServiceState state = ServiceState::Unknown;
    std::optional<double> latencyMs; ///< round trip of the last health check, ms
    int httpStatus = 0;              ///< 0 when no HTTP answer came
    QString detail;                  ///< error text or status line of the last check
    QDateTime lastCheck;             ///< when the last check finished (UTC)
    QDateTime lastChange; ///< when `state` last changed (UTC); invalid before the first check

    /// The status of a service not yet checked (Unknown).
    static ServiceStatus unchecked(const inventory::Service &service);
};

} // namespace opsdeck::probes

Q_DECLARE_METATYPE(opsdeck::probes::ServiceStatus)
