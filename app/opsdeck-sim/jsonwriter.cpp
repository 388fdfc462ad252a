#include "jsonwriter.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace opsdeck::sim {

void JsonWriter::separate()
{
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (!m_hasItem.empty()) {
        if (m_hasItem.back())
            m_out += ',';
        m_hasItem.back() = true;
    }
}

JsonWriter &JsonWriter::beginObject()
{
    separate();
    m_out += '{';
    m_hasItem.push_back(false);
    return *this;
}

JsonWriter &JsonWriter::endObject()
{
    m_out += '}';
    m_hasItem.pop_back();
    return *this;
}

JsonWriter &JsonWriter::beginArray()
{
    separate();
    m_out += '[';
    m_hasItem.push_back(false);
    return *this;
}

JsonWriter &JsonWriter::endArray()
{
    m_out += ']';
    m_hasItem.pop_back();
    return *this;
}

JsonWriter &JsonWriter::key(std::string_view name)
{
    separate();
    m_out += quote(name);
    m_out += ':';
    m_afterKey = true;
    return *this;
}

JsonWriter &JsonWriter::string(std::string_view value)
{
    separate();
    m_out += quote(value);
    return *this;
}

JsonWriter &JsonWriter::integer(std::int64_t value)
{
    separate();
    m_out += std::to_string(value);
    return *this;
}

JsonWriter &JsonWriter::unsignedInteger(std::uint64_t value)
{
    separate();
    m_out += std::to_string(value);
    return *this;
}

JsonWriter &JsonWriter::number(double value)
{
    separate();
    m_out += std::isfinite(value) ? formatDouble(value) : std::string("null");
    return *this;
}

JsonWriter &JsonWriter::boolean(bool value)
{
    separate();
    m_out += value ? "true" : "false";
    return *this;
}

JsonWriter &JsonWriter::null()
{
    separate();
    m_out += "null";
    return *this;
}

JsonWriter &JsonWriter::raw(std::string_view json)
{
    separate();
    m_out += json;
    return *this;
}

std::string JsonWriter::quote(std::string_view value)
{
    std::string out;
    out.reserve(value.size() + 2);
    out += '"';
    for (const char c : value) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
                out += escaped;
            } else {
                out += c;
            }
        }
    }
    out += '"';
    return out;
}

std::string JsonWriter::formatDouble(double value)
{
    char buffer[64];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    if (ec != std::errc())
        return "0";
    return std::string(buffer, end);
}

} // namespace opsdeck::sim
