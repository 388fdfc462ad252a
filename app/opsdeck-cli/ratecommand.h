#pragma once

#include <QStringList>

namespace opsdeck::cli {

/// `opsdeck-cli metrics rate FILE1 FILE2 (--interval SECONDS | --at T1 T2)
/// [--profile NAME] [--json]`: per-second counter rates (per concept and per
/// series, with resets) and windowed TTFT/ITL/E2E quantiles between two saved
/// scrapes, computed as the console computes them (models/metrics/
/// counterrate.h, histogramquantile.h). Exit 2 for bad input, 0 otherwise.
int runMetricsRate(const QStringList &arguments);

} // namespace opsdeck::cli
