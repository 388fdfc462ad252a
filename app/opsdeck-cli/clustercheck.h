#pragma once

#include "inventory.h"

#include <QCommandLineParser>
#include <QString>
#include <functional>
#include <memory>
#include <optional>

namespace opsdeck::secrets {
class SecretStore;
}
namespace opsdeck::history {
class HistoryStore;
}
namespace opsdeck::hosts {
class InventoryTunnels;
}

namespace opsdeck::cli {

/// What `batch-check` and `verify` share: `--inventory F --cluster C
/// [-n N] [--confirm NAME] [--data-dir DIR] [--json]`, the load-bearing
/// checks on them, and running a blocking check off the main thread.
class ClusterCheck
{
public:
    /// Adds the shared options to `parser`.
    static void addOptions(QCommandLineParser &parser);

    /// Loads the inventory and finds the cluster; on bad input prints why
    /// (file:line for the inventory, the cluster's name, the bad -n) and
    /// returns nothing: the caller exits 2.
    static std::optional<ClusterCheck> load(const QCommandLineParser &parser,
                                            const QString &command);

    inventory::Inventory inventory;                   ///< `via:` services routed through `tunnels`
    std::shared_ptr<hosts::InventoryTunnels> tunnels; ///< null when none is needed
    QString cluster;
    int n = 16;           ///< -n, 1..256
    QString confirmation; ///< --confirm
    QString dataDir;      ///< --data-dir (empty: the default data dir)
    bool json = false;

    /// The secret store when a service of the cluster has an API key to read,
    /// else nullptr (so a cluster without keys never touches the keychain).
    secrets::SecretStore *secretStore() const;

    /// The message of a refusal by the production guard, naming the flag
    /// and, when a --confirm was given, that it did not name the cluster.
    QString confirmationHint() const;

    /// With neither router nor proxy the check goes straight to the first
    /// decode ("decode direct"), which in a PD cluster may refuse chats
    /// without the router's bootstrap fields: says so on stderr (stdout
    /// stays the result). Does nothing when the cluster has either.
    void noteWhenDirect() const;

    /// Saves a result through a HistoryStore of the data dir (`record` adds
    /// the rows); a failure is printed on stderr, never fatal: the check ran.
    void saveToHistory(const std::function<bool(history::HistoryStore &)> &record) const;

    /// Runs `work` on a worker thread while this (main) thread processes
    /// events, as the secret store needs; returns when it is done.
    static void runOffMainThread(const std::function<void()> &work);
};

} // namespace opsdeck::cli
