#pragma once

// One scraped /metrics page, as read by ExpositionParser (expositionparser.h).
// Plain C++20 with no Qt, so the worker thread, the CLI and the tests share it.
//
// Formats: Prometheus text exposition format 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/) and OpenMetrics
// 1.0 (https://github.com/OpenObservability/OpenMetrics/blob/main/specification/OpenMetrics.md);
// both fill the same page, and MetricPage::format says which one was read.
//
// Memory: names and label values are views (std::string_view, LabelList), not
// copies. On a parsed page they point into MetricPage::storage, which copies of
// the page share; so they stay valid as long as the page or any copy of it
// lives, and never point into the text that was parsed. A Sample or Label
// copied out of the page does NOT keep them alive: copy the bytes
// (std::string(sample.name)) to keep one past the page. Why views: a std::string
// per name and value and a std::vector per sample cost a third of the parse
// time (tests/bench/bench_parse.cpp).
//
// Thread-safety: a MetricPage is a value; const use from any number of threads
// is safe (the shared storage is read-only once parsed, its count atomic),
// mutation needs the usual external synchronisation.

#include "labellist.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opsdeck::metrics {

class PageArena;

/// The dialect a page was read as (see ExpositionParser for how it is chosen).
enum class PageFormat
{
    /// Prometheus text format 0.0.4 (`text/plain; version=0.0.4`).
    Text004,
    /// OpenMetrics 1.0 (`application/openmetrics-text; version=1.0.0`), ending in `# EOF`.
    OpenMetrics
};

/// Metric type from a `# TYPE` line. Unknown: the page gave no TYPE line for
/// the family, or a type word this parser does not know (with a warning).
/// Untyped: the page said `untyped`. Info, StateSet, GaugeHistogram exist only
/// in OpenMetrics.
enum class MetricType
{
    Unknown,
    Counter,
    Gauge,
    Histogram,
    Summary,
    Untyped,
    Info,
    StateSet,
    GaugeHistogram
};

/// The type word as written on a TYPE line: "counter", "gauge", "histogram",
/// "summary", "untyped", "info", "stateset", "gaugehistogram"; "unknown" for Unknown.
std::string_view typeName(MetricType type);
/// Inverse of typeName(); case-sensitive as the format is. nullopt for any other word.
std::optional<MetricType> typeFromName(std::string_view word);

/// One sample line. A series is identified by `name` plus the label set
/// (order-insensitive); the page holds each series at most once.
struct Sample
{
    /// Full sample name as written (`x_bucket`, `x_sum`, `x_total`, ...),
    /// never with a suffix stripped. A view into the page's storage.
    std::string_view name;
    /// Labels in page order. A view into the page's storage (labellist.h);
    /// consecutive samples with equal label sets (`x_sum`, `x_count`) may share
    /// one array.
    LabelList labels;
    /// Unit: whatever the metric's name says (seconds, bytes, tokens, ratio).
    /// May be NaN or +/-Inf as the page wrote it.
    double value = 0;
    /// Optional timestamp, ms since the Unix epoch. Text 0.0.4 writes integer
    /// ms (kept exactly); OpenMetrics writes seconds with decimals (rounded to
    /// the nearest ms here).
    std::optional<int64_t> timestampMs;
    /// True when the value is a creation time (Unix seconds) rather than a
    /// measurement: an `x_created` sample of a counter, histogram or summary
    /// (OpenMetrics: inside that family; text 0.0.4: in a family whose
    /// Family::createdOf is set). Metadata, never a chart series.
    bool isCreated = false;
    /// 1-based line number in the page (a leading byte-order mark does not shift it).
    int line = 0;

    /// Value of label `name`; "" when the sample has no such label. The view
    /// lives as long as the page's storage.
    std::string_view label(std::string_view name) const;
};

/// A metric family: the samples one TYPE/HELP pair describes.
///
/// Grouping, OpenMetrics 1.0: TYPE/HELP/UNIT name the family without suffixes
/// (counter `x` holds `x_total` and `x_created`; histogram `x` holds `x_bucket`,
/// `x_sum`, `x_count`, `x_created`; summary `x` holds `x`, `x_sum`, `x_count`,
/// `x_created`; gaugehistogram `x` holds `x_bucket`, `x_gsum`, `x_gcount`; info
/// `x` holds `x_info`; stateset and gauge `x` hold `x`).
///
/// Grouping, text format 0.0.4: a TYPE/HELP line names the family as written
/// (`x_total` stays `x_total`; only OpenMetrics strips suffixes). A sample joins
/// the family of its exact name; else a histogram/summary family whose
/// `_bucket`/`_sum`/`_count` it is. A sample with neither gets a family of its
/// own full name with type Unknown, except histogram-shaped ones (`x_bucket`
/// with an `le` label, and that histogram's `x_sum`/`x_count`) which share a
/// family `x`. So `X` and `X_total` are always two families.
struct Family
{
    std::string name;
    MetricType type = MetricType::Unknown;
    /// HELP text, unescaped (`\\`, `\n`; OpenMetrics also `\"`), bytes as on
    /// the page; "" when the page has none.
    std::string help;
    /// OpenMetrics `# UNIT` of the family (`seconds`, `bytes`); "" when none
    /// (always "" for text 0.0.4, which has no UNIT line).
    std::string unit;
    /// Indexes into MetricPage::samples, in page order. Every sample of a page
    /// belongs to exactly one family; a family may have none (a TYPE line alone).
    std::vector<std::size_t> samples;
    /// 1-based line of the family's first TYPE, HELP or sample line.
    int line = 0;
    /// When this family only carries the creation time (Unix seconds) of another
    /// family (`x_created` beside counter `x_total`, or beside histogram or
    /// summary `x`): that family's name. Such a family is metadata, not a chart
    /// series. "" otherwise. Text 0.0.4 only: in OpenMetrics `x_created` is a
    /// sample of family `x` itself, flagged by Sample::isCreated.
    std::string createdOf;
};

/// Something on the page that was skipped, merged or dropped. The page is still
/// usable; a warning never means the page was lost (except the size limit).
struct ParseWarning
{
    /// 1-based line the warning is about; 0 for the page as a whole.
    int line = 0;
    /// Human-readable reason, ASCII-safe (bytes from the page are shown escaped).
    std::string reason;
};

struct MetricPage
{
    /// The dialect the page was read as.
    PageFormat format = PageFormat::Text004;
    /// In order of first appearance on the page.
    std::vector<Family> families;
    /// In page order; duplicates and skipped lines are not here.
    std::vector<Sample> samples;
    /// Sorted by line.
    std::vector<ParseWarning> warnings;
    /// Owns the bytes and label arrays the samples' views point into; shared
    /// (not copied) by copies of the page. Null on a page built by hand, whose
    /// views point wherever its builder keeps the bytes.
    std::shared_ptr<const PageArena> storage;

    /// Family with exactly this name (as written on its TYPE line), or nullptr.
    /// Linear in the number of families.
    const Family *family(std::string_view name) const;
    /// All samples whose full name is `sampleName` (`x_bucket`, not `x`), in
    /// page order. Pointers live as long as the page is not modified.
    std::vector<const Sample *> samplesNamed(std::string_view sampleName) const;
};

} // namespace opsdeck::metrics
