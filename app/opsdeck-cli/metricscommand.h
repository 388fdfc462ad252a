#pragma once

#include <QStringList>

namespace opsdeck::cli {

/// `opsdeck-cli metrics summarize FILE|URL [--json]`: parses one exposition
/// page and prints what the console would show. Exit 2 for a missing file,
/// 1 for an unreachable URL or a page with no series, 3 for a timeout.
int runMetrics(const QStringList &arguments);

} // namespace opsdeck::cli
