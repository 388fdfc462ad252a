#pragma once

// Which sample names a family admits, by type and format. Sources: text 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/, histograms and
// summaries) and OpenMetrics 1.0 ("Metric types": `_total`, `_created`,
// `_info`, `_gsum`, `_gcount`). Internal to opsdeck_metrics; pure function.

#include "metricpage.h"

#include <string_view>

namespace opsdeck::metrics::detail {

/// True when a sample named family name + `suffix` belongs to a family of
/// `type`. `histogramShaped`: an untyped family inferred from `_bucket{le}`.
bool sampleSuffixAdmitted(MetricType type, bool histogramShaped, bool openMetrics,
                          std::string_view suffix);

} // namespace opsdeck::metrics::detail
