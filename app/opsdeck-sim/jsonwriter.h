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

    // Member shorthands: key(name) followed by the value.
    JsonWriter &beginObject(std::string_view name) { return key(name).beginObject(); }
    JsonWriter &beginArray(std::string_view name) { return key(name).beginArray(); }
    JsonWriter &string(std::string_view name, std::string_view value)
    {
        return key(name).string(value);
    }
    JsonWriter &integer(std::string_view name, std::int64_t value)
    {
        return key(name).integer(value);
    }
    JsonWriter &unsignedInteger(std::string_view name, std::uint64_t value)
    {
        return key(name).unsignedInteger(value);
    }
    JsonWriter &number(std::string_view name, double value) { return key(name).number(value); }
    JsonWriter &boolean(std::string_view name, bool value) { return key(name).boolean(value); }
    JsonWriter &null(std::string_view name) { return key(name).null(); }
    JsonWriter &raw(std::string_view name, std::string_view json) { return key(name).raw(json); }

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
