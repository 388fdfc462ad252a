#pragma once

#include "inventory.h"

#include <QString>
#include <QStringList>
#include <QUrl>
#include <QVector>

namespace opsdeck::probes {

/// One way into a cluster that a probe can take, entering at one hop
/// (issue 4, "paths come from the inventory"): client → proxy → router,
/// client → router, client → decode or prefill directly. Comparing the paths
/// that enter at each hop is how a stall is placed on a hop.
///
/// Plain data, any thread. Built by probePaths(); the `http` settings are the
/// entry service's (API key secret name, CA file, TLS verification, timeout,
/// forward proxy), resolved into a ProbeRequest by the caller.
struct ProbePath
{
    QString name;         ///< "via proxy", "router direct", "decode direct", "prefill direct"
    QString entryService; ///< inventory service the client connects to
    inventory::Role entryRole = inventory::Role::Engine;
    /// Services the request crosses, entry first: {"proxy", "router", "decode"}.
    QStringList hops;
    /// 0 for the outermost entry (proxy), 1 for the router, 2 for an engine:
    /// a stall seen at depth d and not at depth d + 1 is placed at the entry of depth d.
    int depth = 0;
    QUrl baseUrl; ///< the entry service's url
    /// The entry service's health URL (inventory::Service::healthUrl(): url + health_path).
    QUrl healthUrl;
    inventory::HttpSettings http; ///< the entry service's `http:` block
};

/// The probe paths of `cluster`, outermost first: via its proxy (when it has
/// one), its router directly (when it has one), then each decode and each
/// prefill directly. Members missing from `inventory` are skipped (a loaded
/// inventory has them all).
QVector<ProbePath> probePaths(const inventory::Inventory &inventory,
                              const inventory::Cluster &cluster);

} // namespace opsdeck::probes
