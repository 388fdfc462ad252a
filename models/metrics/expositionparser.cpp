#include "expositionparser.h"

#include "pagebuilder.h"
#include "samplelineparser.h"
#include "textutil.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace opsdeck::metrics {

namespace {

using detail::PageBuilder;

// HELP text escapes are `\\` and `\n` only; any other backslash stays.
std::string unescapeHelp(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '\\' || text[i + 1] == 'n')) {
            out += text[i + 1] == 'n' ? '\n' : '\\';
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

// `# HELP name text` and `# TYPE name type`; any other comment is ignored.
void readComment(std::string_view line, int lineNo, PageBuilder &builder)
{
    std::string_view rest = line.substr(1);
    const std::string_view keyword = nextToken(rest);
    const bool isHelp = keyword == "HELP";
    if (!isHelp && keyword != "TYPE")
        return;
    const std::string_view name = nextToken(rest);
    if (!detail::isMetricName(name)) {
        builder.warn(lineNo, std::string(keyword) +
                                 " line without a valid metric name: " + detail::quoted(name));
        return;
    }
    if (isHelp) {
        // The docstring is everything after the blanks that follow the name.
        builder.addHelp(name, unescapeHelp(detail::trimLeadingBlanks(rest)), lineNo);
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

void readSample(std::string_view line, int lineNo, PageBuilder &builder)
{
    Sample sample;
    sample.line = lineNo;
    std::string error = detail::SampleLineParser::parse(line, sample);
    if (!error.empty()) {
        builder.warn(lineNo, std::move(error));
        return;
    }
    builder.addSample(std::move(sample));
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

    // One pass of memchr over the page is cheap next to growing the sample
    // vector step by step. Comment lines make it an overestimate; the cap keeps
    // a page of blank lines from reserving a sample per byte.
    const std::size_t lines = detail::countByte(text, '\n') + 1;
    PageBuilder builder(page, options.maxWarnings, std::min(lines, text.size() / 16 + 1));
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
        if (!newline)
            builder.warn(lineNo, "last line has no line ending; the page may be truncated");
        if (line[0] == '#')
            readComment(line, lineNo, builder);
        else
            readSample(line, lineNo, builder);
    }
    if (crlfLines > 0)
        builder.warn(firstCrlfLine, "CRLF line endings (" + std::to_string(crlfLines) +
                                        " lines); '\\r' read as part of the line ending");
    builder.finish();
    return page;
}

} // namespace opsdeck::metrics
