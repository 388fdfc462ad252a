#include "simjson.h"

#include <charconv>

namespace opsdeck::sim {

namespace {

constexpr int kMaxDepth = 64;

struct TooDeep
{
};

} // namespace

std::string dumped(const Json &json)
{
    return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::optional<Json> parsedJson(std::string_view text, std::string *error)
{
    // nlohmann recurses without a bound: stop a hostile nesting early.
    const Json::parser_callback_t depthGuard = [](int depth, Json::parse_event_t, Json &) {
        if (depth > kMaxDepth)
            throw TooDeep{};
        return true;
    };
    try {
        return Json::parse(text.begin(), text.end(), depthGuard);
    } catch (const Json::parse_error &e) {
        if (error)
            *error = e.what();
    } catch (const TooDeep &) {
        if (error)
            *error = "nested deeper than " + std::to_string(kMaxDepth) + " levels";
    }
    return std::nullopt;
}

std::optional<std::uint64_t> unsignedOf(const Json &value)
{
    if (value.is_number_unsigned())
        return value.get<std::uint64_t>();
    if (value.is_number_integer() && value.get<std::int64_t>() >= 0)
        return static_cast<std::uint64_t>(value.get<std::int64_t>());
    if (!value.is_string())
        return std::nullopt;
    const std::string &text = value.get_ref<const std::string &>();
    std::uint64_t parsed = 0;
    const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (status != std::errc() || end != text.data() + text.size() || text.empty())
        return std::nullopt;
    return parsed;
}

const Json *memberOf(const Json &object, std::string_view key)
{
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(std::string(key));
    return it == object.end() ? nullptr : &*it;
}

const std::string *stringMember(const Json &object, std::string_view key)
{
    const Json *member = memberOf(object, key);
    return member && member->is_string() ? &member->get_ref<const std::string &>() : nullptr;
}

} // namespace opsdeck::sim
