#pragma once

// Reads a /metrics page in the Prometheus text exposition format 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/, "Text format
// details"), as served by SGLang, vLLM, the SGLang router and model gateways.
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
// OpenMetrics 1.0 will be a second dialect of the same walk (`# EOF`, `_total`
// and `_created` suffixes, exemplars): it changes how lines are read and which
// sample names a family admits (PageBuilder), not MetricPage.

#include "metricpage.h"

#include <cstddef>
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
