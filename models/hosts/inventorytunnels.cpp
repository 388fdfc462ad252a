#include "inventorytunnels.h"

#include "sshtunnel.h"
#include "sshtunnelset.h"

#include <spdlog/spdlog.h>

namespace opsdeck::hosts {

InventoryTunnels::InventoryTunnels(inventory::Inventory inventory, SettingsFor settingsFor)
    : m_inventory(std::move(inventory))
{
    m_tunnels = std::make_unique<remote::SshTunnelSet>(
        [this, settingsFor = std::move(settingsFor)](const QString &name) {
            const inventory::Host *host = m_inventory.host(name);
            return host ? settingsFor(*host) : remote::SshSettings{};
        });
}

InventoryTunnels::~InventoryTunnels() = default;

inventory::Inventory InventoryTunnels::routed()
{
    inventory::Inventory copy = m_inventory;
    for (inventory::Service &service : copy.services) {
        if (service.via.isEmpty())
            continue;
        service.directUrl = service.url;
        service.url = m_tunnels->route(service.via, service.directUrl);
        if (service.url.isEmpty())
            spdlog::error("service {}: no tunnel via {}: {}", service.name.toStdString(),
                          service.via.toStdString(), m_tunnels->errorText().toStdString());
        if (!service.metricsUrlOverride.isEmpty())
            service.metricsUrlOverride = m_tunnels->route(service.via, service.metricsUrlOverride);
    }
    return copy;
}

void InventoryTunnels::explain(probes::ServiceStatus &status) const
{
    if (status.via.isEmpty() || (status.state != probes::ServiceState::Down &&
                                 status.state != probes::ServiceState::Unresponsive))
        return;
    const remote::SshTunnel *tunnel = m_tunnels->tunnel(status.via, status.url);
    if (tunnel && tunnel->phase() == remote::SshTunnel::Phase::Ready)
        return;
    status.state = probes::ServiceState::Unknown;
    // The tunnel's own error names the via host and the target already.
    const QString why =
        !tunnel ? QStringLiteral("no tunnel via %1: %2").arg(status.via, m_tunnels->errorText())
        : tunnel->phase() == remote::SshTunnel::Phase::Starting
            ? QStringLiteral("tunnel via %1 still connecting").arg(status.via)
            : tunnel->errorText();
    status.detail =
        QStringLiteral("not reached: %1 (HTTP: %2)").arg(why.section(u'\n', 0, 0), status.detail);
}

void InventoryTunnels::retryNow(const QString &host)
{
    m_tunnels->retryNow(host);
}

QString InventoryTunnels::status(const inventory::Service &service) const
{
    if (service.via.isEmpty())
        return {};
    const QUrl target = service.directUrl.isEmpty() ? service.url : service.directUrl;
    const remote::SshTunnel *tunnel = m_tunnels->tunnel(service.via, target);
    if (!tunnel)
        return QStringLiteral("via %1: no tunnel: %2").arg(service.via, m_tunnels->errorText());
    const QString ends = QStringLiteral("via %1: 127.0.0.1:%2 → %3:%4")
                             .arg(service.via)
                             .arg(tunnel->localPort())
                             .arg(target.host())
                             .arg(target.port());
    switch (tunnel->phase()) {
    case remote::SshTunnel::Phase::Starting:
        return ends + QStringLiteral(", connecting");
    case remote::SshTunnel::Phase::Ready:
        return ends + QStringLiteral(", ready");
    case remote::SshTunnel::Phase::Failed:
        break;
    }
    return ends + QStringLiteral(", failed: ") + tunnel->errorText();
}

} // namespace opsdeck::hosts
