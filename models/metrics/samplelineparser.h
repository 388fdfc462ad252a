#pragma once

// Step 2 of ExpositionParser: one sample line into a Sample. Internal to
// opsdeck_metrics.

#include "metricpage.h"

#include <string>
#include <string_view>

namespace opsdeck::metrics::detail {

/// Grammar (text format 0.0.4):
///   name [ "{" [ label "=" '"' value '"' { "," label "=" '"' value '"' } [ "," ] ] "}" ]
///        value [ timestamp ]
/// with blanks (space, tab) between tokens. Label values unescape `\\`, `\"`,
/// `\n`; other backslash pairs stay as written, as Prometheus keeps them.
/// Values: decimal floats with exponents, `NaN`, `+Inf`, `-Inf` (any case, as
/// Go's ParseFloat). Timestamps: int64 ms.
class SampleLineParser
{
public:
    /// Reads `line` (no line ending, leading blanks removed) into `out`
    /// (name, labels, value, timestamp; `out.line` is left alone). Returns ""
    /// on success, else why the line is skipped.
    static std::string parse(std::string_view line, Sample &out);

private:
    /// `badUtf8Label` names the first label whose value is not UTF-8 (the
    /// line is still read to the end, so other errors take precedence).
    static std::string parseLabels(std::string_view line, std::size_t &pos, Sample &out,
                                   std::string_view &badUtf8Label);
    static std::string parseLabelValue(std::string_view line, std::size_t &pos, std::string &out);
};

/// Parses a sample value token; false when it is not a number.
bool parseValue(std::string_view token, double &out);

} // namespace opsdeck::metrics::detail
