#include "jsonvalue.h"

#include "jsonparser.h"

#include <charconv>
#include <cstdlib>

namespace opsdeck::sim {

std::optional<JsonValue> JsonValue::parse(std::string_view text, std::string *error)
{
    return JsonParser(text).document(error);
}

std::optional<std::uint64_t> JsonValue::toUint64() const
{
    if (m_type != Type::Number && m_type != Type::String)
        return std::nullopt;
    std::uint64_t value = 0;
    const char *begin = m_text.data();
    const char *end = begin + m_text.size();
    const auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr != end || m_text.empty())
        return std::nullopt;
    return value;
}

const JsonValue *JsonValue::find(std::string_view key) const
{
    for (size_t i = 0; i < m_keys.size(); ++i) {
        if (m_keys[i] == key)
            return &m_values[i];
    }
    return nullptr;
}

} // namespace opsdeck::sim
