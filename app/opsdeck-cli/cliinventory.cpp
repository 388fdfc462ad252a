#include "cliinventory.h"

#include "clioutput.h"
#include "hostconnections.h"
#include "hostkeyauditor.h"
#include "inventorytunnels.h"

#include <algorithm>

namespace opsdeck::cli {

void addTunnelOptions(QCommandLineParser &parser)
{
    parser.addOption(
        {QStringLiteral("ssh-config"),
         QStringLiteral("OpenSSH client config for the tunnels of `via:` services "
                        "(default: the settings' [ssh] config_file, else ~/.ssh/config)."),
         QStringLiteral("file")});
    parser.addOption({QStringLiteral("known-hosts"),
                      QStringLiteral("known_hosts file for those tunnels (default: the "
                                     "settings' [ssh] known_hosts_file, else ~/.ssh/known_hosts)."),
                      QStringLiteral("file")});
}

hosts::HostConnections::Options sshFileOptions(const QCommandLineParser &parser)
{
    const auto given = [&parser](const QString &name) -> std::optional<QString> {
        return parser.isSet(name) ? std::optional(parser.value(name)) : std::nullopt;
    };
    return hosts::HostConnections::Options::fromQSettings(given(QStringLiteral("ssh-config")),
                                                          given(QStringLiteral("known-hosts")));
}

std::optional<inventory::Inventory> loadInventoryOrSay(const QString &path)
{
    const inventory::LoadResult loaded = inventory::loadInventory(path);
    for (const auto &error : loaded.errors)
        printError(error.toString());
    return loaded.inventory;
}

std::optional<ServedInventory> loadServedInventory(const QCommandLineParser &parser,
                                                   const QString &path)
{
    const std::optional<inventory::Inventory> loaded = loadInventoryOrSay(path);
    if (!loaded)
        return std::nullopt;
    ServedInventory served{*loaded, nullptr};
    const auto &services = served.inventory.services;
    if (std::none_of(services.cbegin(), services.cend(),
                     [](const inventory::Service &s) { return !s.via.isEmpty(); }))
        return served;
    hosts::HostConnections::Options options = sshFileOptions(parser);
    const QString dataDir = parser.value(QStringLiteral("data-dir"));
    options.auditor = hosts::HostKeyAuditor::inDataDir(dataDir);
    served.tunnels = std::make_shared<hosts::InventoryTunnels>(
        served.inventory, [options](const inventory::Host &host) {
            return hosts::HostConnections::sshSettings(host, options);
        });
    served.inventory = served.tunnels->routed();
    return served;
}

} // namespace opsdeck::cli
