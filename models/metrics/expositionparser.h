#pragma once

// Reads a /metrics page in the Prometheus text exposition format 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/, "Text format
// details"), as served by SGLang, vLLM, the SGLang router and model gateways,
// or in OpenMetrics 1.0 (https://github.com/OpenObservability/OpenMetrics/blob/
// main/specification/OpenMetrics.md), as served to a scraper that asks for it.
//
// Which one (ParseOptions::format, then ::contentType, then the page):
// - format Text004 / OpenMetrics: that one, whatever else says;
// - Auto with a Content-Type: `application/openmetrics-text` is OpenMetrics,
//   `text/plain` (any version) is text 0.0.4, anything else is text 0.0.4 with
//   a warning;
// - Auto without a Content-Type (a file, a paste): OpenMetrics when a line is
//   `# EOF` (its last, or followed by lines that are then ignored with a
//   warning), else text 0.0.4 (a text page has no reason to hold that line).
//
// Lenient by design: an on-call console must show what it can. One bad line is
// skipped with a warning naming its line; it never loses the page. What is
// accepted beyond the letter of the spec, and why:
// - a UTF-8 byte-order mark before the first line is skipped (Windows-side
//   exporters write one; Prometheus used to reject the whole page);
// - `\r\n` line endings: the `\r` belongs to the line ending, never to a token
//   (one warning per page);
// - a family split into several groups is merged (one warning per family);
// - a duplicated series keeps its FIRST value, as Prometheus does (one warning
//   per dropped sample);
// - a label value with invalid UTF-8 drops that series only (warning);
// - a last line without `\n` is read, with a warning (the page may be truncated).
//
// OpenMetrics is a dialect of the same walk: `# UNIT` and `# EOF` lines (text
// after `# EOF` is ignored with a warning; a missing `# EOF` is a warning, the
// page may be truncated), `\"` in HELP, timestamps in seconds, exemplars
// (checked, then discarded; a bad one is a warning, the sample stays), and
// families named without `_total`/`_created`/`_info` (PageBuilder). Blank lines
// and other `#` comments, which OpenMetrics forbids, are skipped quietly.
// Not read: quoted UTF-8 metric and label names (`{"a.b"}`, Prometheus 3 /
// OpenMetrics 2 drafts); such a line is skipped with a warning like any bad line.

#include "metricpage.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace opsdeck::metrics {

struct ParseOptions
{
    /// Pages larger than this (bytes) are not parsed at all: the result is an
    /// empty page with one warning on line 0. 16 MiB is far above any engine's
    /// page and bounds the memory one bad scrape can take.
    std::size_t maxPageBytes = 16u << 20;
    /// Warnings kept per page; past it one last warning says how many more were
    /// suppressed (a page of random bytes would otherwise make one per line).
    std::size_t maxWarnings = 1000;

    enum class Format
    {
        /// From contentType, else from a `# EOF` line (see the top of this file).
        Auto,
        /// Prometheus text 0.0.4.
        Text004,
        /// OpenMetrics 1.0.
        OpenMetrics
    };
    Format format = Format::Auto;
    /// The HTTP Content-Type header of the response as received (media type and
    /// parameters, any case); "" when there is none (a file). Read only when
    /// format is Auto.
    std::string contentType = {};
};

class ExpositionParser
{
public:
    /// Parses `text` (the HTTP body, any size; it is not copied line by line).
    ///
    /// Never throws on bad input and never fails as a whole except for the size
    /// limit; problems are in MetricPage::warnings. May throw std::bad_alloc.
    /// Reentrant: no shared state, call it from any thread concurrently.
    static MetricPage parse(std::string_view text, const ParseOptions &options = {});
};

} // namespace opsdeck::metrics
