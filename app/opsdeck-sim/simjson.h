#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace opsdeck::sim {

/// The sim's JSON: nlohmann-json with keys kept in the order written, as
/// SGLang's own answers list them.
using Json = nlohmann::ordered_json;

/// `json` as one compact document. Strings that are not valid UTF-8 have the
/// bad bytes replaced (U+FFFD) rather than failing an answer; NaN and
/// infinities are null (JSON has neither). Any thread.
std::string dumped(const Json &json);

/// A whole document, strictly (RFC 8259: no comments, no trailing commas,
/// nothing after it), nested at most 64 deep; nullopt with a message in
/// `error` (nlohmann's, with the byte offset) otherwise. Any thread.
std::optional<Json> parsedJson(std::string_view text, std::string *error = nullptr);

/// The exact unsigned integer of a number, or of a string of digits (SGLang
/// sends bootstrap_room as either; 63-bit values must survive); nullopt for
/// fractions, negatives and anything else.
std::optional<std::uint64_t> unsignedOf(const Json &value);

/// The member `key` of an object, or nullptr (absent, or `object` is not an object).
const Json *memberOf(const Json &object, std::string_view key);
/// The string member `key` of an object, or nullptr (absent, not a string,
/// or `object` is not an object).
const std::string *stringMember(const Json &object, std::string_view key);

} // namespace opsdeck::sim
