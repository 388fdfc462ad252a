#include "chatresponder.h"

#include "jsonwriter.h"

#include <chrono>
#include <cstdio>
#include <random>

namespace opsdeck::sim {

namespace {

std::string randomHex(int digits)
{
    thread_local std::mt19937_64 rng(std::random_device{}());
    std::string out;
    while (static_cast<int>(out.size()) < digits) {
        char part[17];
        std::snprintf(part, sizeof part, "%016llx", static_cast<unsigned long long>(rng()));
        out += part;
    }
    return out.substr(0, static_cast<size_t>(digits));
}

} // namespace

ChatResponder::ChatResponder(std::string model)
    : m_id("chatcmpl-" + randomHex(32)), m_model(std::move(model)),
      m_created(std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count())
{
}

std::string ChatResponder::usageJson(int promptTokens, int completionTokens)
{
    JsonWriter w;
    w.beginObject()
        .integer("prompt_tokens", promptTokens)
        .integer("total_tokens", promptTokens + completionTokens)
        .integer("completion_tokens", completionTokens)
        .null("prompt_tokens_details")
        .endObject();
    return w.str();
}

std::string ChatResponder::completion(const std::string &content, int promptTokens,
                                      int completionTokens) const
{
    JsonWriter w;
    w.beginObject()
        .string("id", m_id)
        .string("object", "chat.completion")
        .integer("created", m_created)
        .string("model", m_model)
        .beginArray("choices")
        .beginObject()
        .integer("index", 0)
        .beginObject("message")
        .string("role", "assistant")
        .string("content", content)
        .null("reasoning_content")
        .null("tool_calls")
        .endObject()
        .null("logprobs")
        .string("finish_reason", "length")
        .null("matched_stop")
        .endObject()
        .endArray()
        .raw("usage", usageJson(promptTokens, completionTokens))
        .endObject();
    return w.str();
}

std::string ChatResponder::chunk(const std::string &deltaJson, const char *finishReason) const
{
    JsonWriter w;
    w.beginObject()
        .string("id", m_id)
        .string("object", "chat.completion.chunk")
        .integer("created", m_created)
        .string("model", m_model)
        .beginArray("choices")
        .beginObject()
        .integer("index", 0)
        .raw("delta", deltaJson)
        .null("logprobs")
        .key("finish_reason");
    if (finishReason)
        w.string(finishReason);
    else
        w.null();
    w.endObject().endArray().endObject();
    return "data: " + w.str() + "\n\n";
}

std::string ChatResponder::roleChunk() const
{
    return chunk(R"({"role":"assistant","content":""})", nullptr);
}

std::string ChatResponder::contentChunk(const std::string &text) const
{
    return chunk("{\"content\":" + JsonWriter::quote(text) + "}", nullptr);
}

std::string ChatResponder::finishChunk() const
{
    return chunk("{}", "length");
}

std::string ChatResponder::usageChunk(int promptTokens, int completionTokens) const
{
    JsonWriter w;
    w.beginObject()
        .string("id", m_id)
        .string("object", "chat.completion.chunk")
        .integer("created", m_created)
        .string("model", m_model)
        .beginArray("choices")
        .endArray()
        .raw("usage", usageJson(promptTokens, completionTokens))
        .endObject();
    return "data: " + w.str() + "\n\n";
}

std::string ChatResponder::doneEvent()
{
    return "data: [DONE]\n\n";
}

std::string ChatResponder::errorBody(const std::string &message, const std::string &type, int code)
{
    JsonWriter w;
    w.beginObject()
        .beginObject("error")
        .string("message", message)
        .string("type", type)
        .null("param")
        .integer("code", code)
        .endObject()
        .endObject();
    return w.str();
}

std::string ChatResponder::errorEvent(const std::string &message, const std::string &type, int code)
{
    return "data: " + errorBody(message, type, code) + "\n\n";
}

} // namespace opsdeck::sim
