#include "clustercheck.h"

#include "apppaths.h"
#include "cliinventory.h"
#include "clioutput.h"
#include "historystore.h"
#include "numberoption.h"
#include "secretstore.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <thread>

using namespace Qt::StringLiterals;

namespace opsdeck::cli {

void ClusterCheck::addOptions(QCommandLineParser &parser)
{
    parser.addOption({u"inventory"_s, u"Inventory file (YAML)."_s, u"file"_s});
    parser.addOption({u"cluster"_s, u"Cluster to check (its name in the inventory)."_s, u"name"_s});
    parser.addOption(
        {u"n"_s, u"Concurrent requests of the batch check, 1 to 256 (default 16)."_s, u"N"_s});
    parser.addOption({u"confirm"_s,
                      u"The cluster's name: needed when it has services tagged production, "
                      "which the batch check loads."_s,
                      u"name"_s});
    parser.addOption(dataDirOption());
    addTunnelOptions(parser);
    parser.addOption(jsonOption());
}

std::optional<ClusterCheck> ClusterCheck::load(const QCommandLineParser &parser,
                                               const QString &command)
{
    if (!parser.isSet(u"inventory"_s) || !parser.isSet(u"cluster"_s)) {
        printError(u"%1 needs --inventory FILE and --cluster NAME"_s.arg(command));
        return std::nullopt;
    }
    ClusterCheck check;
    const std::optional<int> n =
        wholeNumberOption(parser, u"n"_s, 1, 256, check.n, u"concurrent requests"_s);
    if (!n)
        return std::nullopt;
    check.n = *n;
    auto loaded = loadServedInventory(parser, parser.value(u"inventory"_s));
    if (!loaded)
        return std::nullopt;
    check.inventory = loaded->inventory;
    check.tunnels = loaded->tunnels;
    check.cluster = parser.value(u"cluster"_s);
    if (!check.inventory.cluster(check.cluster)) {
        QStringList names;
        for (const auto &cluster : std::as_const(check.inventory.clusters))
            names << cluster.name;
        printError(u"%1: no cluster named '%2' (clusters: %3)"_s.arg(
            check.inventory.path, check.cluster, names.join(u", "_s)));
        return std::nullopt;
    }
    check.confirmation = parser.value(u"confirm"_s);
    check.dataDir = parser.value(u"data-dir"_s);
    check.json = parser.isSet(u"json"_s);
    return check;
}

secrets::SecretStore *ClusterCheck::secretStore() const
{
    const inventory::Cluster *c = inventory.cluster(cluster);
    for (const QString &name : c->prefill + c->decode + QStringList{c->router, c->proxy})
        if (const auto *service = inventory.service(name);
            service && !service->http.apiKeySecret.isEmpty())
            return &secrets::SecretStore::shared();
    return nullptr;
}

QString ClusterCheck::confirmationHint() const
{
    if (!confirmation.isEmpty() && confirmation != cluster)
        return u"--confirm '%1' does not name the cluster; pass --confirm %2 to run it anyway"_s
            .arg(confirmation, cluster);
    return u"pass --confirm %1 to run it anyway"_s.arg(cluster);
}

void ClusterCheck::noteWhenDirect() const
{
    const inventory::Cluster *c = inventory.cluster(cluster);
    if (!c || !c->router.isEmpty() || !c->proxy.isEmpty())
        return;
    printError(u"note: cluster %1 has neither router nor proxy: the check goes directly to its "
               "first decode (%2); a PD decode without a router may not serve chats"_s.arg(
                   cluster, c->decode.value(0, u"none"_s)));
}

void ClusterCheck::saveToHistory(const std::function<bool(history::HistoryStore &)> &record) const
{
    history::HistoryStore store(
        history::HistoryStore::pathIn(settings::AppPaths::dataDir(dataDir)));
    if (!store.open() || !record(store))
        printError(u"not saved in history: %1"_s.arg(store.lastError()));
}

void ClusterCheck::runOffMainThread(const std::function<void()> &work)
{
    QEventLoop loop;
    std::thread worker([&] {
        work();
        QMetaObject::invokeMethod(&loop, &QEventLoop::quit, Qt::QueuedConnection);
    });
    loop.exec();
    worker.join();
}

} // namespace opsdeck::cli
