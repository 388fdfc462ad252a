#pragma once

#include <QStringList>

namespace opsdeck::cli {

/// `opsdeck-cli lock status --inventory FILE --cluster NAME [--json]`: who
/// holds the cluster's lock (workflows::ClusterLock): owner, machine,
/// workflow, since when, and whether it is stale. Exit 0 free, 1 held, 3 the
/// host did not answer, 2 bad input. `--json`: `{"path","host","held",
/// "owner","from","workflow","time","expires","stale"}`.
///
/// `opsdeck-cli lock break --inventory FILE --cluster NAME --confirm NAME`:
/// removes it whoever holds it, after an audit entry naming the holder;
/// `--confirm` must be the cluster's name. Exit 0 removed (or already free),
/// 2 refused, 1 not removed.
int runLock(const QStringList &arguments);

} // namespace opsdeck::cli
