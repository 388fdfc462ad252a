#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opsdeck::sim {

/// A parsed JSON document (RFC 8259), small and strict: enough to read the
/// fields of a chat completion request and the answers of other sims.
///
/// Numbers keep their source text as well as a double, so 63-bit integers
/// such as `bootstrap_room` survive exactly (see toUint64()).
/// Nesting is limited to 64 levels; anything else malformed is an error.
class JsonValue
{
public:
    enum class Type
    {
        Null,
        Bool,
        Number,
        String,
        Array,
        Object
    };

    /// Parses a whole document; trailing non-space text is an error.
    /// On failure returns nullopt and, when `error` is given, a message with
    /// the byte offset.
    static std::optional<JsonValue> parse(std::string_view text, std::string *error = nullptr);

    Type type() const { return m_type; }
    bool isNull() const { return m_type == Type::Null; }
    bool isBool() const { return m_type == Type::Bool; }
    bool isNumber() const { return m_type == Type::Number; }
    bool isString() const { return m_type == Type::String; }
    bool isArray() const { return m_type == Type::Array; }
    bool isObject() const { return m_type == Type::Object; }

    bool boolean() const { return m_bool; }
    double number() const { return m_number; }
    /// String value, or the source text of a number.
    const std::string &text() const { return m_text; }
    /// Exact unsigned integer of a Number (or of a String of digits); nullopt
    /// for fractions, negatives and out-of-range values.
    std::optional<std::uint64_t> toUint64() const;

    /// Array elements (empty unless isArray()).
    const std::vector<JsonValue> &elements() const { return m_values; }
    /// Object member by key (first match), or nullptr.
    const JsonValue *find(std::string_view key) const;
    /// Object member keys, in document order.
    const std::vector<std::string> &keys() const { return m_keys; }

private:
    friend class JsonParser;

    Type m_type = Type::Null;
    bool m_bool = false;
    double m_number = 0.0;
    std::string m_text;
    std::vector<std::string> m_keys; // objects only, parallel to m_values
    std::vector<JsonValue> m_values; // array elements or object member values
};

} // namespace opsdeck::sim
