#pragma once

// Step 1 of ExpositionParser: which dialect to read a page as (rules at the
// top of expositionparser.h). Internal to opsdeck_metrics.

#include "expositionparser.h"
#include "metricpage.h"

#include <string>
#include <string_view>

namespace opsdeck::metrics::detail {

/// The format to read `text` as. `warning` is set (else left alone) when the
/// Content-Type is neither text nor OpenMetrics. O(1) in the page size: only
/// the last line is looked at.
PageFormat chooseFormat(std::string_view text, const ParseOptions &options, std::string &warning);

/// True when the last line of `text` (trailing `\n`/`\r\n` and blanks aside)
/// is exactly `# EOF`.
bool endsWithEof(std::string_view text);

} // namespace opsdeck::metrics::detail
