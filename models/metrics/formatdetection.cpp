#include "formatdetection.h"

#include "textutil.h"

#include <cctype>

namespace opsdeck::metrics::detail {

namespace {

// The media type alone (before ';'), trimmed and lower-cased: RFC 9110 media
// types are case-insensitive.
std::string mediaType(std::string_view contentType)
{
    contentType = contentType.substr(0, contentType.find(';'));
    std::string out;
    for (const char c : contentType) {
        if (c != ' ' && c != '\t')
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

} // namespace

bool hasEofLine(std::string_view text)
{
    constexpr std::string_view eof = "# EOF";
    for (std::size_t at = text.find(eof); at != std::string_view::npos;
         at = text.find(eof, at + 1)) {
        if (at != 0 && text[at - 1] != '\n')
            continue; // inside a line: a HELP text or a label value
        std::string_view rest = text.substr(at + eof.size());
        while (!rest.empty() && isBlank(rest.front()))
            rest.remove_prefix(1);
        if (rest.starts_with('\r'))
            rest.remove_prefix(1);
        if (rest.empty() || rest.front() == '\n')
            return true;
    }
    return false;
}

PageFormat chooseFormat(std::string_view text, const ParseOptions &options, std::string &warning)
{
    switch (options.format) {
    case ParseOptions::Format::Text004:
        return PageFormat::Text004;
    case ParseOptions::Format::OpenMetrics:
        return PageFormat::OpenMetrics;
    case ParseOptions::Format::Auto:
        break;
    }
    if (options.contentType.empty())
        return hasEofLine(text) ? PageFormat::OpenMetrics : PageFormat::Text004;
    const std::string type = mediaType(options.contentType);
    if (type == "application/openmetrics-text")
        return PageFormat::OpenMetrics;
    if (type != "text/plain")
        warning = "unexpected Content-Type " + quoted(options.contentType, 80) +
                  "; read as Prometheus text format 0.0.4";
    return PageFormat::Text004;
}

} // namespace opsdeck::metrics::detail
