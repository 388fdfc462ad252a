#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace opsdeck::sim {

/// Deterministic "model output": token i of a completion is a word picked by
/// a hash of (prompt seed, i). The same prompt always yields the same text,
/// so a streamed answer concatenates to exactly the non-streamed one, and a
/// longer max_tokens only extends it. Stateless and thread-safe.
class TextGenerator
{
public:
    /// Seed from the prompt text (FNV-1a).
    static std::uint64_t seedFor(std::string_view promptText);
    /// Text of token `index` (words after the first carry a leading space).
    static std::string token(std::uint64_t seed, int index);
    /// Tokens [0, count) concatenated.
    static std::string text(std::uint64_t seed, int count);
};

} // namespace opsdeck::sim
