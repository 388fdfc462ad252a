#include "expositionparser.h"

#include "formatdetection.h"
#include "labelinterner.h"
#include "pagearena.h"
#include "pagebuilder.h"
#include "samplelineparser.h"
#include "textutil.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

namespace opsdeck::metrics {

namespace {

using detail::PageBuilder;

// HELP text escapes are `\\` and `\n` (OpenMetrics adds `\"`); any other
// backslash stays.
std::string unescapeHelp(std::string_view text, bool openMetrics)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char next = i + 1 < text.size() ? text[i + 1] : '\0';
        if (text[i] == '\\' && (next == '\\' || next == 'n' || (openMetrics && next == '"'))) {
            out += next == 'n' ? '\n' : next;
            ++i;
        } else {
            out += text[i];
        }
    }
    return out;
}

std::string_view nextToken(std::string_view &rest)
{
    rest = detail::trimLeadingBlanks(rest);
    std::size_t end = 0;
    while (end < rest.size() && !detail::isBlank(rest[end]))
        ++end;
    const std::string_view token = rest.substr(0, end);
    rest.remove_prefix(end);
    return token;
}

// `# HELP name text` and `# TYPE name type` (OpenMetrics: also `# UNIT name
// unit`); any other comment is ignored.
void readComment(std::string_view line, int lineNo, bool openMetrics, PageBuilder &builder)
{
    std::string_view rest = line.substr(1);
    const std::string_view keyword = nextToken(rest);
    const bool isHelp = keyword == "HELP";
    const bool isUnit = openMetrics && keyword == "UNIT";
    if (!isHelp && !isUnit && keyword != "TYPE")
        return;
    const std::string_view name = nextToken(rest);
    if (!detail::isMetricName(name)) {
        builder.warn(lineNo, std::string(keyword) +
                                 " line without a valid metric name: " + detail::quoted(name));
        return;
    }
    if (isHelp) {
        // The docstring is everything after the blanks that follow the name.
        builder.addHelp(name, unescapeHelp(detail::trimLeadingBlanks(rest), openMetrics), lineNo);
        return;
    }
    if (isUnit) {
        const std::string_view unit = nextToken(rest);
        if (const std::string_view extra = detail::trimLeadingBlanks(rest); !extra.empty())
            builder.warn(lineNo, "unexpected text after UNIT of " + std::string(name) + ": " +
                                     detail::quoted(extra));
        builder.addUnit(name, unit, lineNo);
        return;
    }
    const std::string_view type = nextToken(rest);
    if (type.empty()) {
        builder.warn(lineNo, "TYPE line for " + std::string(name) + " has no type");
        return;
    }
    if (const std::string_view extra = detail::trimLeadingBlanks(rest); !extra.empty())
        builder.warn(lineNo, "unexpected text after TYPE of " + std::string(name) + ": " +
                                 detail::quoted(extra));
    builder.addType(name, type, lineNo);
}

void readSample(std::string_view line, int lineNo, detail::SampleLineParser &parser,
                PageBuilder &builder, std::vector<std::string> &notes)
{
    Sample sample;
    sample.line = lineNo;
    notes.clear();
    std::string error = parser.parse(line, sample, notes);
    for (std::string &note : notes)
        builder.warn(lineNo, std::move(note));
    if (!error.empty()) {
        builder.warn(lineNo, std::move(error));
        return;
    }
    builder.addSample(std::move(sample));
}

bool isEofLine(std::string_view line)
{
    std::string_view rest = line.substr(1);
    return nextToken(rest) == "EOF" && detail::trimLeadingBlanks(rest).empty();
}

} // namespace

MetricPage ExpositionParser::parse(std::string_view text, const ParseOptions &options)
{
    MetricPage page;
    if (text.size() > options.maxPageBytes) {
        page.warnings.push_back(
            {0, "page is " + std::to_string(text.size()) + " bytes, over the limit of " +
                    std::to_string(options.maxPageBytes) + " bytes; not parsed"});
        return page;
    }
    constexpr std::string_view bom = "\xEF\xBB\xBF";
    if (text.starts_with(bom))
        text.remove_prefix(bom.size());
    std::string formatWarning;
    page.format = detail::chooseFormat(text, options, formatWarning);
    const bool openMetrics = page.format == PageFormat::OpenMetrics;

    // Reserving the sample vector beats growing it step by step (each step
    // copies and faults in fresh memory). The lines of the first 256 KiB,
    // scaled to the page, estimate the count (exact for smaller pages; counting
    // the whole page cost 3 % of the parse); comment lines make it an
    // overestimate, and the cap keeps a page of blank lines from reserving a
    // sample per byte.
    constexpr std::size_t sampledBytes = 256 * 1024;
    const std::string_view head = text.substr(0, sampledBytes);
    const std::size_t headLines = detail::countByte(head, '\n') + 1;
    const std::size_t lines =
        text.size() <= sampledBytes ? headLines : headLines * (text.size() / head.size() + 1);
    PageBuilder builder(page, options.maxWarnings, std::min(lines, text.size() / 16 + 1));
    // Names and label values go to one arena the page keeps (pagearena.h);
    // they take less room than the text, so a small page gets small blocks.
    auto arena = std::make_shared<PageArena>(
        std::clamp<std::size_t>(text.size(), 4096, PageArena::defaultBlockBytes));
    detail::LabelInterner labels(*arena);
    detail::SampleLineParser lineParser(page.format, *arena, labels);
    if (!formatWarning.empty())
        builder.warn(0, std::move(formatWarning));
    std::vector<std::string> notes; // reused: per-line warnings that keep the sample
    int eofLine = 0;
    int lineNo = 0;
    int crlfLines = 0;
    int firstCrlfLine = 0;
    const char *cursor = text.data();
    const char *const end = text.data() + text.size();
    while (cursor < end) {
        ++lineNo;
        const auto *newline = static_cast<const char *>(
            std::memchr(cursor, '\n', static_cast<std::size_t>(end - cursor)));
        const char *lineEnd = newline ? newline : end;
        std::string_view line(cursor, static_cast<std::size_t>(lineEnd - cursor));
        cursor = newline ? newline + 1 : end;
        // The '\r' of "\r\n" is part of the line ending, never of a token.
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
            if (crlfLines++ == 0)
                firstCrlfLine = lineNo;
        }
        line = detail::trimLeadingBlanks(line);
        if (line.empty())
            continue;
        if (openMetrics && line[0] == '#' && isEofLine(line)) {
            eofLine = lineNo;
            // OpenMetrics 1.0, "Overall Structure": nothing may follow `# EOF`.
            if (!detail::trimTrailingSpace(std::string_view(cursor, std::size_t(end - cursor)))
                     .empty())
                builder.warn(lineNo, "text after \"# EOF\" ignored");
            break;
        }
        if (!newline)
            builder.warn(lineNo, "last line has no line ending; the page may be truncated");
        if (line[0] == '#')
            readComment(line, lineNo, openMetrics, builder);
        else
            readSample(line, lineNo, lineParser, builder, notes);
    }
    if (openMetrics && eofLine == 0)
        builder.warn(lineNo, "OpenMetrics page without \"# EOF\" line; it may be truncated");
    if (crlfLines > 0)
        builder.warn(firstCrlfLine, "CRLF line endings (" + std::to_string(crlfLines) +
                                        " lines); '\\r' read as part of the line ending");
    builder.finish();
    page.storage = std::move(arena);
    return page;
}

} // namespace opsdeck::metrics
