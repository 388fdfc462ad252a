#pragma once

// Byte-level helpers shared by the parser's steps. Internal to opsdeck_metrics.

#include <cstdint>
#include <cstring>
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

/// A quick 64-bit hash of a short string, eight bytes at a time. std::hash
/// (murmur in libstdc++) cost 5 % of a parse; callers compare equal hashes byte
/// by byte, so only the spread matters.
inline std::uint64_t hashBytes(std::string_view bytes)
{
    constexpr std::uint64_t multiplier = 0xbf58476d1ce4e5b9ULL;
    std::uint64_t h = bytes.size() * 0x9e3779b97f4a7c15ULL;
    std::size_t i = 0;
    for (; i + 8 <= bytes.size(); i += 8) {
        std::uint64_t word;
        std::memcpy(&word, bytes.data() + i, 8);
        h = (h ^ word) * multiplier;
        h ^= h >> 29;
    }
    std::uint64_t tail = 0;
    if (i < bytes.size() && bytes.size() >= 8) {
        // The last eight bytes, overlapping what the loop saw.
        std::memcpy(&tail, bytes.data() + bytes.size() - 8, 8);
    } else {
        for (std::size_t shift = 0; i < bytes.size(); ++i, shift += 8)
            tail |= std::uint64_t(static_cast<unsigned char>(bytes[i])) << shift;
    }
    h = (h ^ tail) * multiplier;
    return h ^ (h >> 31);
}

/// a == b for short strings without a call to memcmp (a call per label costs
/// more than the compare); true at once for the same view.
inline bool sameBytes(std::string_view a, std::string_view b)
{
    const std::size_t n = a.size();
    if (n != b.size())
        return false;
    if (a.data() == b.data())
        return true;
    if (n < 8) {
        for (std::size_t i = 0; i < n; ++i) {
            if (a[i] != b[i])
                return false;
        }
        return true;
    }
    std::uint64_t x;
    std::uint64_t y;
    for (std::size_t i = 0; i + 8 <= n; i += 8) {
        std::memcpy(&x, a.data() + i, 8);
        std::memcpy(&y, b.data() + i, 8);
        if (x != y)
            return false;
    }
    // The last eight bytes, overlapping what the loop saw.
    std::memcpy(&x, a.data() + n - 8, 8);
    std::memcpy(&y, b.data() + n - 8, 8);
    return x == y;
}

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
