#include "jsonparser.h"

#include <cstdlib>

namespace opsdeck::sim {

std::optional<JsonValue> JsonParser::document(std::string *error)
{
    JsonValue value;
    skipSpace();
    if (parseValue(value, 0)) {
        skipSpace();
        if (m_pos == m_text.size())
            return value;
        fail("unexpected text after the document");
    }
    if (error)
        *error = m_error + " at byte " + std::to_string(m_pos);
    return std::nullopt;
}

bool JsonParser::fail(const char *message)
{
    if (m_error.empty())
        m_error = message;
    return false;
}

void JsonParser::skipSpace()
{
    while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' ||
                                     m_text[m_pos] == '\n' || m_text[m_pos] == '\r'))
        ++m_pos;
}

bool JsonParser::literal(std::string_view word)
{
    if (m_text.substr(m_pos, word.size()) != word)
        return fail("invalid literal");
    m_pos += word.size();
    return true;
}

bool JsonParser::parseValue(JsonValue &out, int depth)
{
    if (depth > MaxDepth)
        return fail("nesting too deep");
    if (m_pos >= m_text.size())
        return fail("unexpected end of input");
    switch (m_text[m_pos]) {
    case '{':
        return parseObject(out, depth);
    case '[':
        return parseArray(out, depth);
    case '"':
        out.m_type = JsonValue::Type::String;
        return parseString(out.m_text);
    case 't':
        out.m_type = JsonValue::Type::Bool;
        out.m_bool = true;
        return literal("true");
    case 'f':
        out.m_type = JsonValue::Type::Bool;
        return literal("false");
    case 'n':
        return literal("null");
    default:
        return parseNumber(out);
    }
}

bool JsonParser::parseObject(JsonValue &out, int depth)
{
    out.m_type = JsonValue::Type::Object;
    ++m_pos; // '{'
    skipSpace();
    if (m_pos < m_text.size() && m_text[m_pos] == '}') {
        ++m_pos;
        return true;
    }
    for (;;) {
        skipSpace();
        if (m_pos >= m_text.size() || m_text[m_pos] != '"')
            return fail("expected a member name");
        std::string key;
        if (!parseString(key))
            return false;
        skipSpace();
        if (m_pos >= m_text.size() || m_text[m_pos] != ':')
            return fail("expected ':'");
        ++m_pos;
        skipSpace();
        JsonValue value;
        if (!parseValue(value, depth + 1))
            return false;
        out.m_keys.push_back(std::move(key));
        out.m_values.push_back(std::move(value));
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == ',') {
            ++m_pos;
            continue;
        }
        if (m_pos < m_text.size() && m_text[m_pos] == '}') {
            ++m_pos;
            return true;
        }
        return fail("expected ',' or '}'");
    }
}

bool JsonParser::parseArray(JsonValue &out, int depth)
{
    out.m_type = JsonValue::Type::Array;
    ++m_pos; // '['
    skipSpace();
    if (m_pos < m_text.size() && m_text[m_pos] == ']') {
        ++m_pos;
        return true;
    }
    for (;;) {
        skipSpace();
        JsonValue value;
        if (!parseValue(value, depth + 1))
            return false;
        out.m_values.push_back(std::move(value));
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == ',') {
            ++m_pos;
            continue;
        }
        if (m_pos < m_text.size() && m_text[m_pos] == ']') {
            ++m_pos;
            return true;
        }
        return fail("expected ',' or ']'");
    }
}

bool JsonParser::hex4(unsigned &code)
{
    if (m_pos + 4 > m_text.size())
        return fail("truncated \\u escape");
    code = 0;
    for (int i = 0; i < 4; ++i) {
        const char c = m_text[m_pos++];
        code <<= 4;
        if (c >= '0' && c <= '9')
            code |= static_cast<unsigned>(c - '0');
        else if (c >= 'a' && c <= 'f')
            code |= static_cast<unsigned>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            code |= static_cast<unsigned>(c - 'A' + 10);
        else
            return fail("invalid \\u escape");
    }
    return true;
}

void JsonParser::appendUtf8(std::string &out, unsigned code)
{
    if (code < 0x80) {
        out += static_cast<char>(code);
    } else if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (code >> 18));
        out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
}

bool JsonParser::parseEscape(std::string &out)
{
    if (m_pos >= m_text.size())
        return fail("truncated escape");
    const char c = m_text[m_pos++];
    switch (c) {
    case '"':
        out += '"';
        return true;
    case '\\':
        out += '\\';
        return true;
    case '/':
        out += '/';
        return true;
    case 'b':
        out += '\b';
        return true;
    case 'f':
        out += '\f';
        return true;
    case 'n':
        out += '\n';
        return true;
    case 'r':
        out += '\r';
        return true;
    case 't':
        out += '\t';
        return true;
    case 'u': {
        unsigned code = 0;
        if (!hex4(code))
            return false;
        // A high surrogate must pair with a low one to name a code point above U+FFFF.
        if (code >= 0xD800 && code <= 0xDBFF) {
            unsigned low = 0;
            if (m_text.substr(m_pos, 2) != "\\u")
                return fail("unpaired surrogate");
            m_pos += 2;
            if (!hex4(low) || low < 0xDC00 || low > 0xDFFF)
                return fail("unpaired surrogate");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        } else if (code >= 0xDC00 && code <= 0xDFFF) {
            return fail("unpaired surrogate");
        }
        appendUtf8(out, code);
        return true;
    }
    default:
        return fail("invalid escape");
    }
}

bool JsonParser::parseString(std::string &out)
{
    ++m_pos; // opening quote
    while (m_pos < m_text.size()) {
        const char c = m_text[m_pos++];
        if (c == '"')
            return true;
        if (c == '\\') {
            if (!parseEscape(out))
                return false;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            return fail("control character in string");
        } else {
            out += c;
        }
    }
    return fail("unterminated string");
}

bool JsonParser::parseNumber(JsonValue &out)
{
    const size_t start = m_pos;
    auto digits = [&] {
        const size_t from = m_pos;
        while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9')
            ++m_pos;
        return m_pos > from;
    };
    if (m_pos < m_text.size() && m_text[m_pos] == '-')
        ++m_pos;
    if (m_pos < m_text.size() && m_text[m_pos] == '0')
        ++m_pos;
    else if (!digits())
        return fail("invalid value");
    if (m_pos < m_text.size() && m_text[m_pos] == '.') {
        ++m_pos;
        if (!digits())
            return fail("invalid number");
    }
    if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
        ++m_pos;
        if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-'))
            ++m_pos;
        if (!digits())
            return fail("invalid number");
    }
    out.m_type = JsonValue::Type::Number;
    out.m_text = std::string(m_text.substr(start, m_pos - start));
    out.m_number = std::strtod(out.m_text.c_str(), nullptr);
    return true;
}

} // namespace opsdeck::sim
