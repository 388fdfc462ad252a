#pragma once

#include "jsonvalue.h"

#include <optional>
#include <string>
#include <string_view>

namespace opsdeck::sim {

/// Recursive-descent parser behind JsonValue::parse() (RFC 8259, strict:
/// no comments, no trailing commas, \u escapes with surrogate pairs decoded
/// to UTF-8, nesting limited to 64). One parser per document; not thread-safe.
class JsonParser
{
public:
    explicit JsonParser(std::string_view text) : m_text(text) {}

    /// The whole document, or nullopt with `error` (message and byte offset).
    std::optional<JsonValue> document(std::string *error);

private:
    static constexpr int MaxDepth = 64;

    bool fail(const char *message);
    void skipSpace();
    bool literal(std::string_view word);
    bool parseValue(JsonValue &out, int depth);
    bool parseObject(JsonValue &out, int depth);
    bool parseArray(JsonValue &out, int depth);
    bool hex4(unsigned &code);
    static void appendUtf8(std::string &out, unsigned code);
    bool parseEscape(std::string &out);
    bool parseString(std::string &out);
    bool parseNumber(JsonValue &out);

    std::string_view m_text;
    size_t m_pos = 0;
    std::string m_error;
};

} // namespace opsdeck::sim
