#pragma once

// Byte-level helpers shared by the parser's steps. Internal to opsdeck_metrics.

#include <string>
#include <string_view>

namespace opsdeck::metrics::detail {

/// True when `bytes` is well-formed UTF-8 (RFC 3629: no overlong forms, no
/// surrogates, nothing above U+10FFFF).
bool isValidUtf8(std::string_view bytes);

/// `bytes` in double quotes for a warning: printable ASCII as is, anything else
/// as `\xNN`, cut after `maxBytes` with "...". Keeps warnings ASCII-safe even
/// when the page is garbage.
std::string quoted(std::string_view bytes, std::size_t maxBytes = 40);

/// How often `c` occurs in `bytes`. memchr-based: GCC 12 does not vectorise
/// std::count at -O2, and this runs over whole pages.
std::size_t countByte(std::string_view bytes, char c);

/// Blanks between tokens in the text format are spaces and tabs.
constexpr bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

constexpr std::string_view trimLeadingBlanks(std::string_view s)
{
    std::size_t i = 0;
    while (i < s.size() && isBlank(s[i]))
        ++i;
    return s.substr(i);
}

/// Without trailing blanks and line-ending bytes (`\r`, `\n`).
constexpr std::string_view trimTrailingSpace(std::string_view s)
{
    while (!s.empty() && (isBlank(s.back()) || s.back() == '\r' || s.back() == '\n'))
        s.remove_suffix(1);
    return s;
}

/// Metric names: [a-zA-Z_:][a-zA-Z0-9_:]*. Label names: the same without ':'.
/// A table, not a chain of compares: names are scanned on every sample line.
inline constexpr struct NameCharTable
{
    // bit 0: name start (no colon), bit 1: name char (no colon); ':' is both with colon
    unsigned char bits[256] = {};
    constexpr NameCharTable()
    {
        for (int c = 0; c < 256; ++c) {
            const bool start = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
            bits[c] = static_cast<unsigned char>((start ? 1 : 0) |
                                                 ((start || (c >= '0' && c <= '9')) ? 2 : 0));
        }
    }
} nameCharTable;

constexpr bool isNameStart(char c, bool allowColon)
{
    return (nameCharTable.bits[static_cast<unsigned char>(c)] & 1) || (allowColon && c == ':');
}
constexpr bool isNameChar(char c, bool allowColon)
{
    return (nameCharTable.bits[static_cast<unsigned char>(c)] & 2) || (allowColon && c == ':');
}
/// Length of the name at the start of `s` (0 when none).
constexpr std::size_t nameLength(std::string_view s, bool allowColon)
{
    if (s.empty() || !isNameStart(s[0], allowColon))
        return 0;
    std::size_t i = 1;
    while (i < s.size() && isNameChar(s[i], allowColon))
        ++i;
    return i;
}
constexpr bool isMetricName(std::string_view s)
{
    return !s.empty() && nameLength(s, true) == s.size();
}

} // namespace opsdeck::metrics::detail
