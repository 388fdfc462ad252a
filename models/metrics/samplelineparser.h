#pragma once

// Step 2 of ExpositionParser: one sample line into a Sample. Internal to
// opsdeck_metrics.

#include "labelinterner.h"
#include "metricpage.h"
#include "pagearena.h"

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
///
/// One instance reads the lines of one page, in order, on one thread. Sample
/// names go to the arena, labels through `labels` (one Label per distinct pair
/// on the page). A name or label written as at the same place on the previous
/// sample line is matched by a compare and takes that one's bytes, without a
/// scan or a lookup (pages list a family's series together, so most are); a
/// label set equal to the previous one shares its list.
class SampleLineParser
{
public:
    SampleLineParser(PageFormat format, PageArena &arena, LabelInterner &labels);

    /// Reads `line` (no line ending, leading blanks removed) into `out`
    /// (name, labels, value, timestamp; `out.line` and `out.isCreated` are left
    /// alone). Returns "" on success, else why the line is skipped (then `out`
    /// is unspecified). Problems that do not cost the sample (unknown escape,
    /// bad exemplar) are appended to `notes` (not cleared here), whether or not
    /// the line succeeds.
    std::string parse(std::string_view line, Sample &out, std::vector<std::string> &notes);

private:
    /// Reads the sample's labels after the '{' at `pos` into m_pointers (one
    /// interned Label each) and m_raw. `sameAsLast` is set when they are the
    /// last sample's. `badUtf8Label` names the first label whose value is not
    /// UTF-8 (the line is still read to the end, so other errors take precedence).
    std::string parseSampleLabels(std::string_view line, std::size_t &pos,
                                  std::string_view sampleName, bool &sameAsLast,
                                  std::string_view &badUtf8Label, std::vector<std::string> &notes);
    /// Reads labels after the '{' at `pos` into `labels` (cleared first) as
    /// views into `line`, or into the arena for a value with escapes: the
    /// exemplar's labels, which are checked and dropped.
    std::string parseLabels(std::string_view line, std::size_t &pos, std::string_view sampleName,
                            std::vector<Label> &labels, std::string_view &badUtf8Label,
                            std::vector<std::string> &notes);
    /// `name` `=` at `pos`, with blanks around '='.
    std::string readLabelName(std::string_view line, std::size_t &pos, std::string_view sampleName,
                              std::string_view &labelName);
    /// The quoted value at `pos`, its notes and its UTF-8 check (see parseLabelValue).
    std::string readLabelValue(std::string_view line, std::size_t &pos, std::string_view sampleName,
                               std::string_view labelName, std::string_view &value, bool &plain,
                               std::string_view &badUtf8Label, std::vector<std::string> &notes);
    /// The value of the label whose opening '"' is at `pos`: a view into `line`
    /// when it has no backslash (`plain`), else unescaped into the arena.
    /// `unknownEscape` gets the first backslash pair that is not `\\`, `\"`, `\n`.
    std::string parseLabelValue(std::string_view line, std::size_t &pos, std::string_view &value,
                                bool &plain, std::string_view &unknownEscape);
    /// Why `rest` (the text after an exemplar's '#') is not an exemplar; "" when it is.
    std::string checkExemplar(std::string_view rest, std::string_view sampleName);

    const bool m_openMetrics;
    PageArena &m_arena;
    LabelInterner &m_interner;
    std::vector<const Label *> m_pointers; // scratch: this line's labels
    // Per label of this line: its text from name to closing quote when it has
    // no backslash, else empty. A view into the page text, which outlives the
    // parser.
    std::vector<std::string_view> m_raw;
    std::vector<Label> m_exemplarLabels;     // scratch for exemplars
    std::string_view m_lastName;             // in the arena: the last sample's
    LabelList m_lastLabels;                  // in the arena: the last sample's
    std::vector<std::string_view> m_lastRaw; // m_raw of the last sample
};

/// Parses a sample value token; false when it is not a number.
bool parseValue(std::string_view token, double &out);

/// Parses an OpenMetrics timestamp (seconds, a real number) into ms since the
/// epoch, rounded to the nearest ms; false when it is not a finite number in
/// int64 ms range.
bool parseSecondsAsMs(std::string_view token, int64_t &outMs);

} // namespace opsdeck::metrics::detail
