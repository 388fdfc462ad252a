#include "hostsignalsqueries.h"

namespace opsdeck::hosts {

QVector<remote::ServiceProcessQuery> hostSignalsQueries(const inventory::Inventory &inventory,
                                                        const QString &host)
{
    QVector<remote::ServiceProcessQuery> queries;
    for (const auto &service : inventory.services)
        if (service.host == host)
            queries.append({service.name, service.pidFile, std::max(service.url.port(), 0)});
    return queries;
}

} // namespace opsdeck::hosts
