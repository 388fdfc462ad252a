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
        .key("prompt_tokens").integer(promptTokens)
        .key("total_tokens").integer(promptTokens + completionTokens)
        .key("completion_tokens").integer(completionTokens)
        .key("prompt_tokens_details").null()
        .endObject();
    return w.str();
}

std::string ChatResponder::completion(const std::string &content, int promptTokens,
                                      int completionTokens) const
{
    JsonWriter w;
    w.beginObject()
        .key("id").string(m_id)
        .key("object").string("chat.completion")
        .key("created").integer(m_created)
        .key("model").string(m_model)
        .key("choices").beginArray()
        .beginObject()
        .key("index").integer(0)
        .key("message").beginObject()
        .key("role").string("assistant")
        .key("content").string(content)
        .key("reasoning_content").null()
        .key("tool_calls").null()
        .endObject()
        .key("logprobs").null()
        .key("finish_reason").string("length")
        .key("matched_stop").null()
        .endObject()
        .endArray()
        .key("usage").raw(usageJson(promptTokens, completionTokens))
        .endObject();
    return w.str();
}

std::string ChatResponder::chunk(const std::string &deltaJson, const char *finishReason) const
{
    JsonWriter w;
    w.beginObject()
        .key("id").string(m_id)
        .key("object").string("chat.completion.chunk")
        .key("created").integer(m_created)
        .key("model").string(m_model)
        .key("choices").beginArray()
        .beginObject()
        .key("index").integer(0)
        .key("delta").raw(deltaJson)
        .key("logprobs").null()
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

std::string ChatResponder::finishChunk() const { return chunk("{}", "length"); }

std::string ChatResponder::usageChunk(int promptTokens, int completionTokens) const
{
    JsonWriter w;
    w.beginObject()
        .key("id").string(m_id)
        .key("object").string("chat.completion.chunk")
        .key("created").integer(m_created)
        .key("model").string(m_model)
        .key("choices").beginArray().endArray()
        .key("usage").raw(usageJson(promptTokens, completionTokens))
        .endObject();
    return "data: " + w.str() + "\n\n";
}

std::string ChatResponder::doneEvent() { return "data: [DONE]\n\n"; }

std::string ChatResponder::errorBody(const std::string &message, const std::string &type,
                                     int code)
{
    JsonWriter w;
    w.beginObject()
        .key("error").beginObject()
        .key("message").string(message)
        .key("type").string(type)
        .key("param").null()
        .key("code").integer(code)
        .endObject()
        .endObject();
    return w.str();
}

std::string ChatResponder::errorEvent(const std::string &message, const std::string &type,
                                      int code)
{
    return "data: " + errorBody(message, type, code) + "\n\n";
}

} // namespace opsdeck::sim
