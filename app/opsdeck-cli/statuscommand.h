#pragma once

#include <QStringList>

namespace opsdeck::cli {

/// `opsdeck-cli status --inventory FILE [--json]`: one health check of every
/// service; exit 1 unless all are healthy, 2 when the inventory is bad.
int runStatus(const QStringList &arguments);

} // namespace opsdeck::cli
