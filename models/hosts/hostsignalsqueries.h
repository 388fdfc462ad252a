#pragma once

#include "inventory.h"
#include "serviceprocessquery.h"

#include <QVector>

namespace opsdeck::hosts {

/// What HostSignals needs for the services of inventory host `host`, in
/// inventory order: name, pid_file, and the port of `url` (the `--port N` the
/// server was started with; 0 when the URL has none). Services reached `via`
/// another host run on `host` all the same: their processes are looked up there.
QVector<remote::ServiceProcessQuery> hostSignalsQueries(const inventory::Inventory &inventory,
                                                        const QString &host);

} // namespace opsdeck::hosts
