#include "probepath.h"

using namespace Qt::StringLiterals;

namespace opsdeck::probes {

namespace {

ProbePath pathInto(const inventory::Service &entry, const QString &name, int depth,
                   const QStringList &hops)
{
    ProbePath path;
    path.name = name;
    path.entryService = entry.name;
    path.entryRole = entry.role;
    path.hops = hops;
    path.depth = depth;
    path.baseUrl = entry.url;
    path.healthUrl = entry.healthUrl();
    path.http = entry.http;
    return path;
}

} // namespace

QVector<ProbePath> probePaths(const inventory::Inventory &inventory,
                              const inventory::Cluster &cluster)
{
    // The engines a request through the router reaches: in PD mode a chat
    // crosses one prefill and one decode; listed so the hop chain reads whole.
    QStringList engines;
    for (const QString &name : cluster.prefill + cluster.decode)
        if (inventory.service(name))
            engines << name;

    QVector<ProbePath> paths;
    const inventory::Service *router =
        cluster.router.isEmpty() ? nullptr : inventory.service(cluster.router);
    const QStringList behindRouter = router ? QStringList{router->name} + engines : engines;
    if (!cluster.proxy.isEmpty())
        if (const inventory::Service *proxy = inventory.service(cluster.proxy))
            paths << pathInto(*proxy, u"via proxy"_s, 0, QStringList{proxy->name} + behindRouter);
    if (router)
        paths << pathInto(*router, u"router direct"_s, 1, behindRouter);
    // Engines last and deepest: a stall they show is theirs alone.
    for (const QString &name : cluster.decode + cluster.prefill) {
        const inventory::Service *engine = inventory.service(name);
        if (!engine)
            continue;
        const QString role = inventory::roleName(engine->role);
        // One decode and one prefill keep the short names the issue uses;
        // several get their service name so each path stays distinct.
        const bool several = (engine->role == inventory::Role::Prefill ? cluster.prefill.size()
                                                                       : cluster.decode.size()) > 1;
        const QString name2 = several ? u"%1 direct"_s.arg(engine->name) : u"%1 direct"_s.arg(role);
        paths << pathInto(*engine, name2, 2, QStringList{engine->name});
    }
    return paths;
}

} // namespace opsdeck::probes
