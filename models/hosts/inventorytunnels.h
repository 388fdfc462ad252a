#pragma once

#include "inventory.h"
#include "servicestatus.h"
#include "sshsettings.h"

#include <functional>
#include <memory>

namespace opsdeck::remote {
class SshTunnelSet;
}

namespace opsdeck::hosts {

/// The SSH tunnels an inventory's `via:` services need, and the copy of the
/// inventory that uses them (issue 5, reaching services behind a host): the
/// poller, the probes and the checks are given that copy, so they reach a
/// tunnelled service without knowing it. Used by the window (through
/// HostConnections) and by the opsdeck-cli commands that read an inventory.
/// Thread: any one thread; the tunnels run on their own threads and close
/// when this is destroyed.
class InventoryTunnels
{
public:
    /// Gives the SshSettings of an inventory host (HostConnections::sshSettings).
    using SettingsFor = std::function<remote::SshSettings(const inventory::Host &host)>;

    InventoryTunnels(inventory::Inventory inventory, SettingsFor settingsFor);
    ~InventoryTunnels();
    InventoryTunnels(const InventoryTunnels &) = delete;
    InventoryTunnels &operator=(const InventoryTunnels &) = delete;

    /// The inventory given, with every `via:` service reached through a local
    /// tunnel port: `url` and `metricsUrlOverride` point at 127.0.0.1:N,
    /// `directUrl` keeps the written URL. When no local port could be opened
    /// (rare: out of file descriptors) `url` is left empty, so the poller
    /// reports the service down at once and status() says why; never the
    /// direct URL, which would bypass the host the inventory asked for.
    /// Tunnels start here; early requests wait in the port's backlog until
    /// the host is connected.
    inventory::Inventory routed();

    /// For the panel: "via gpu-1: 127.0.0.1:41234 → 127.0.0.1:30000, ready",
    /// ", connecting", ", failed: <why>"; empty for a service reached directly.
    /// Takes a service of either the written or the routed inventory.
    QString status(const inventory::Service &service) const;

    /// A `via:` service found down (no HTTP answer) while its tunnel is not
    /// ready is not known to be down: the host in between failed. Its state
    /// becomes Unknown and its detail "not reached: tunnel via H to T: <why>" (states are
    /// observed, never assumed). Any other status is left as it is.
    void explain(probes::ServiceStatus &status) const;

    /// The tunnels through `host` try it again at the next connection
    /// (after the operator accepted its key; SshTunnel::retryNow()).
    void retryNow(const QString &host);

private:
    inventory::Inventory m_inventory;
    std::unique_ptr<remote::SshTunnelSet> m_tunnels;
};

} // namespace opsdeck::hosts
