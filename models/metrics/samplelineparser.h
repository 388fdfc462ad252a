#pragma once

// Step 2 of ExpositionParser: one sample line into a Sample. Internal to
// opsdeck_metrics.

#include "metricpage.h"

#include <string>
#include <string_view>
#include <vector>

namespace opsdeck::metrics::detail {

/// Grammar (text format 0.0.4):
///   name [ "{" [ label "=" '"' value '"' { "," label "=" '"' value '"' } [ "," ] ] "}" ]
///        value [ timestamp ]
/// with blanks (space, tab) between tokens. Label values unescape `\\`, `\"`,
/// `\n`; other backslash pairs stay as written, as Prometheus keeps them (with
/// a note). Values: decimal floats with exponents, `NaN`, `+Inf`, `-Inf` (any
/// case, as Go's ParseFloat). Timestamps: int64 ms.
///
/// OpenMetrics 1.0 (spec section "ABNF", `sample` and `exemplar`) differs in:
/// timestamps are seconds as a real number (converted to ms), and an exemplar
///   "#" "{" labels "}" value [ timestamp ]
/// may follow the value or timestamp. Exemplars are checked and discarded; a
/// malformed one is a note, never the line's error.
class SampleLineParser
{
public:
    /// Reads `line` (no line ending, leading blanks removed) into `out`
    /// (name, labels, value, timestamp; `out.line` and `out.isCreated` are left
    /// alone). Returns "" on success, else why the line is skipped. Problems
    /// that do not cost the sample (unknown escape, bad exemplar) are appended
    /// to `notes` (not cleared here), whether or not the line succeeds.
    static std::string parse(std::string_view line, Sample &out, PageFormat format,
                             std::vector<std::string> &notes);

private:
    /// `badUtf8Label` names the first label whose value is not UTF-8 (the
    /// line is still read to the end, so other errors take precedence).
    static std::string parseLabels(std::string_view line, std::size_t &pos, Sample &out,
                                   std::string_view &badUtf8Label, std::vector<std::string> &notes);
    /// `unknownEscape` gets the first backslash pair that is not `\\`, `\"`, `\n`.
    static std::string parseLabelValue(std::string_view line, std::size_t &pos, std::string &out,
                                       std::string_view &unknownEscape);
    /// Why `rest` (the text after an exemplar's '#') is not an exemplar; "" when it is.
    static std::string checkExemplar(std::string_view rest, const std::string &sampleName);
};

/// Parses a sample value token; false when it is not a number.
bool parseValue(std::string_view token, double &out);

/// Parses an OpenMetrics timestamp (seconds, a real number) into ms since the
/// epoch, rounded to the nearest ms; false when it is not a finite number in
/// int64 ms range.
bool parseSecondsAsMs(std::string_view token, int64_t &outMs);

} // namespace opsdeck::metrics::detail
