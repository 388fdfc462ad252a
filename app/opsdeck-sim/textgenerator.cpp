#include "textgenerator.h"

#include <array>

namespace opsdeck::sim {

namespace {

constexpr std::array<const char *, 48> kWords = {
    "the",     "decode", "batch",      "prefill", "token",  "cache",   "router",    "request",
    "latency", "steady", "kernel",     "stream",  "engine", "memory",  "attention", "queue",
    "handoff", "room",   "throughput", "rank",    "layer",  "context", "prompt",    "answer",
    "is",      "and",    "of",         "a",       "to",     "with",    "from",      "on",
    "fast",    "ready",  "warm",       "long",    "short",  "shared",  "paged",     "quiet",
    "probe",   "health", "knob",       "proxy",   "reused", "fresh",   "path",      "check"};

std::uint64_t mix(std::uint64_t x)
{
    // splitmix64 finalizer: cheap and well spread.
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

} // namespace

std::uint64_t TextGenerator::seedFor(std::string_view promptText)
{
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (const char c : promptText) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

std::string TextGenerator::token(std::uint64_t seed, int index)
{
    const auto pick = mix(seed ^ mix(static_cast<std::uint64_t>(index))) % kWords.size();
    std::string word = kWords[pick];
    return index == 0 ? word : " " + word;
}

std::string TextGenerator::text(std::uint64_t seed, int count)
{
    std::string out;
    for (int i = 0; i < count; ++i)
        out += token(seed, i);
    return out;
}

} // namespace opsdeck::sim
