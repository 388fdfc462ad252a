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

bool endsWithEof(std::string_view text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || isBlank(text.back())))
        text.remove_suffix(1);
    constexpr std::string_view eof = "# EOF";
    if (!text.ends_with(eof))
        return false;
    text.remove_suffix(eof.size());
    while (!text.empty() && isBlank(text.back()))
        text.remove_suffix(1);
    return text.empty() || text.back() == '\n';
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
        return endsWithEof(text) ? PageFormat::OpenMetrics : PageFormat::Text004;
    const std::string type = mediaType(options.contentType);
    if (type == "application/openmetrics-text")
        return PageFormat::OpenMetrics;
    if (type != "text/plain")
        warning = "unexpected Content-Type " + quoted(options.contentType, 80) +
                  "; read as Prometheus text format 0.0.4";
    return PageFormat::Text004;
}

} // namespace opsdeck::metrics::detail
