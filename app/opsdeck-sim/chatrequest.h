#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace opsdeck::sim {

/// The fields of an OpenAI chat completion request the sim acts on.
///
/// prompt_tokens is estimated as ceil(UTF-8 bytes of all messages[].content /
/// 4), at least 1 (content may be a string or an array of {"type":"text",
/// "text":...} parts). max_tokens (or max_completion_tokens) defaults to 16.
/// The PD fields bootstrap_host/port/room are what the router adds.
class ChatRequest
{
public:
    /// nullopt with `error` set when the body is not valid JSON or lacks
    /// messages; the caller answers 400.
    static std::optional<ChatRequest> parse(const std::string &body, std::string &error);

    const std::string &model() const { return m_model; }
    int promptTokens() const { return m_promptTokens; }
    int maxTokens() const { return m_maxTokens; }
    bool stream() const { return m_stream; }
    bool includeUsage() const { return m_includeUsage; }
    /// Seed of the deterministic answer (hash of the prompt text).
    std::uint64_t seed() const { return m_seed; }

    bool hasBootstrap() const { return m_bootstrapRoom.has_value(); }
    const std::string &bootstrapHost() const { return m_bootstrapHost; }
    int bootstrapPort() const { return m_bootstrapPort; }
    std::uint64_t bootstrapRoom() const { return m_bootstrapRoom.value_or(0); }

private:
    std::string m_model;
    int m_promptTokens = 1;
    int m_maxTokens = 16;
    bool m_stream = false;
    bool m_includeUsage = false;
    std::uint64_t m_seed = 0;
    std::string m_bootstrapHost;
    int m_bootstrapPort = 0;
    std::optional<std::uint64_t> m_bootstrapRoom;
};

} // namespace opsdeck::sim
