#pragma once

#include "hostconnections.h"
#include "inventory.h"

#include <QCommandLineParser>
#include <QString>
#include <memory>
#include <optional>

namespace opsdeck::hosts {
class InventoryTunnels;
}

namespace opsdeck::cli {

/// An inventory loaded for a command that polls or probes its services.
struct ServedInventory
{
    /// As loaded, except that `via:` services point at their tunnels' local
    /// ports (InventoryTunnels::routed(); `directUrl` keeps the written URL).
    inventory::Inventory inventory;
    /// Keeps those tunnels open; null when no service has `via:`.
    std::shared_ptr<hosts::InventoryTunnels> tunnels;
};

/// `--ssh-config FILE` and `--known-hosts FILE` (as `opsdeck-cli ssh`), for
/// the tunnels of `via:` services.
void addTunnelOptions(QCommandLineParser &parser);

/// The ssh config and known_hosts of the settings file's `[ssh]` group
/// (HostConnections::Options::fromQSettings()), each replaced by
/// `--ssh-config` / `--known-hosts` when that option is given (an empty value
/// then means the user's own ~/.ssh file).
hosts::HostConnections::Options sshFileOptions(const QCommandLineParser &parser);

/// Loads `path` as it is written (no tunnels); on errors prints each
/// (file:line:column) and returns nullopt.
std::optional<inventory::Inventory> loadInventoryOrSay(const QString &path);

/// Loads `path`; on errors prints each (file:line:column) and returns nullopt.
/// Services with `via:` are reached through SSH tunnels made with the user's
/// keys and the ssh config and known_hosts sshFileOptions() gives; host-key
/// decisions go to the audit log in `--data-dir` (AppPaths). An unknown host
/// key is refused (accept it once with `opsdeck-cli ssh HOST
/// --accept-new-host-key SHA256:...`).
std::optional<ServedInventory> loadServedInventory(const QCommandLineParser &parser,
                                                   const QString &path);

} // namespace opsdeck::cli
