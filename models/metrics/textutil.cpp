#include "textutil.h"

#include <cstdint>
#include <cstring>

namespace opsdeck::metrics::detail {

bool isValidUtf8(std::string_view bytes)
{
    const auto *p = reinterpret_cast<const unsigned char *>(bytes.data());
    const auto *end = p + bytes.size();
    while (p < end) {
        const unsigned char c = *p;
        if (c < 0x80) {
            ++p;
            continue;
        }
        int extra = 0;
        std::uint32_t cp = 0;
        std::uint32_t min = 0;
        if ((c & 0xE0) == 0xC0) {
            extra = 1, cp = c & 0x1F, min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            extra = 2, cp = c & 0x0F, min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            extra = 3, cp = c & 0x07, min = 0x10000;
        } else {
            return false; // stray continuation byte, or 0xF8..0xFF
        }
        if (end - p <= extra)
            return false;
        for (int i = 1; i <= extra; ++i) {
            if ((p[i] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (p[i] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        p += extra + 1;
    }
    return true;
}

std::size_t countByte(std::string_view bytes, char c)
{
    std::size_t n = 0;
    const char *p = bytes.data();
    const char *const end = p + bytes.size();
    while (p < end) {
        const auto *hit = static_cast<const char *>(std::memchr(p, c, std::size_t(end - p)));
        if (!hit)
            break;
        ++n;
        p = hit + 1;
    }
    return n;
}

std::string quoted(std::string_view bytes, std::size_t maxBytes)
{
    static constexpr char hex[] = "0123456789abcdef";
    std::string out = "\"";
    const bool cut = bytes.size() > maxBytes;
    for (const char ch : bytes.substr(0, maxBytes)) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += ch;
        } else if (c >= 0x20 && c < 0x7F) {
            out += ch;
        } else {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 0xF];
        }
    }
    out += cut ? "\"..." : "\"";
    return out;
}

} // namespace opsdeck::metrics::detail
