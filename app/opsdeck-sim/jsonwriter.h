#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace opsdeck::sim {

/// Builds one compact JSON document left to right. Commas are placed for the
/// caller; keys must be given inside objects. Non-finite doubles become null
/// (JSON has no NaN). Not thread-safe: one writer per response.
class JsonWriter
{
public:
    JsonWriter &beginObject();
    JsonWriter &endObject();
    JsonWriter &beginArray();
    JsonWriter &endArray();
    JsonWriter &key(std::string_view name);

    JsonWriter &string(std::string_view value);
    JsonWriter &integer(std::int64_t value);
    JsonWriter &unsignedInteger(std::uint64_t value);
    JsonWriter &number(double value);
    JsonWriter &boolean(bool value);
    JsonWriter &null();
    /// Inserts an already serialized JSON value as it is.
    JsonWriter &raw(std::string_view json);

    const std::string &str() const { return m_out; }

    /// `value` as a quoted JSON string.
    static std::string quote(std::string_view value);
    /// Shortest round-trip text of a double (what Python's repr would print).
    static std::string formatDouble(double value);

private:
    void separate();

    std::string m_out;
    std::vector<bool> m_hasItem; // per open container: something was written already
    bool m_afterKey = false;
};

} // namespace opsdeck::sim
