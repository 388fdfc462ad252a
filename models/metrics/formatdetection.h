#pragma once

// Step 1 of ExpositionParser: which dialect to read a page as (rules at the
// top of expositionparser.h). Internal to opsdeck_metrics.

#include "expositionparser.h"
#include "metricpage.h"

#include <string>
#include <string_view>

namespace opsdeck::metrics::detail {

/// The format to read `text` as. `warning` is set (else left alone) when the
/// Content-Type is neither text nor OpenMetrics. Without a Content-Type, one
/// search of the page for a `# EOF` line (memchr speed; pages with a
/// Content-Type are not searched).
PageFormat chooseFormat(std::string_view text, const ParseOptions &options, std::string &warning);

/// True when a line of `text` is `# EOF` (trailing blanks and `\r` aside), at
/// the end or not: text 0.0.4 has no such line, and an OpenMetrics page with
/// lines after it must be read as OpenMetrics to have them ignored, with a
/// warning, not added to the page.
bool hasEofLine(std::string_view text);

} // namespace opsdeck::metrics::detail
