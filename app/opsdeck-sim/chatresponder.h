#pragma once

#include "simjson.h"

#include <cstdint>
#include <string>

namespace opsdeck::sim {

/// Builds OpenAI-shaped chat completion bodies for one request: the
/// `chat.completion` object, the `chat.completion.chunk` SSE events and
/// OpenAI-style error bodies. Field order and members follow SGLang's
/// OpenAI-compatible server. Not thread-safe; one per request.
class ChatResponder
{
public:
    /// `model`: echoed from the request (SGLang echoes it), else the served name.
    explicit ChatResponder(std::string model);

    const std::string &id() const { return m_id; }

    /// The whole non-streaming response.
    std::string completion(const std::string &content, int promptTokens,
                           int completionTokens) const;

    /// One SSE event (`data: {...}\n\n`) with the assistant role and empty content.
    std::string roleChunk() const;
    /// One SSE event carrying `text` as delta content.
    std::string contentChunk(const std::string &text) const;
    /// The SSE event with finish_reason "length" and an empty delta.
    std::string finishChunk() const;
    /// The SSE event with empty choices and the usage (stream_options.include_usage).
    std::string usageChunk(int promptTokens, int completionTokens) const;
    /// `data: [DONE]\n\n`.
    static std::string doneEvent();

    /// `{"error":{"message":...,"type":...,"param":null,"code":CODE}}`.
    static std::string errorBody(const std::string &message, const std::string &type, int code);
    /// The same error as an SSE event (for failures after the stream began).
    static std::string errorEvent(const std::string &message, const std::string &type, int code);

private:
    std::string chunk(const Json &delta, const char *finishReason) const;
    static Json usage(int promptTokens, int completionTokens);

    std::string m_id;
    std::string m_model;
    std::int64_t m_created;
};

} // namespace opsdeck::sim
