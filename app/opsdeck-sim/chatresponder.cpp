#include "chatresponder.h"

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

Json ChatResponder::usage(int promptTokens, int completionTokens)
{
    return Json{{"prompt_tokens", promptTokens},
                {"total_tokens", promptTokens + completionTokens},
                {"completion_tokens", completionTokens},
                {"prompt_tokens_details", nullptr}};
}

std::string ChatResponder::completion(const std::string &content, int promptTokens,
                                      int completionTokens) const
{
    const Json choice{{"index", 0},
                      {"message",
                       {{"role", "assistant"},
                        {"content", content},
                        {"reasoning_content", nullptr},
                        {"tool_calls", nullptr}}},
                      {"logprobs", nullptr},
                      {"finish_reason", "length"},
                      {"matched_stop", nullptr}};
    return dumped(Json{{"id", m_id},
                       {"object", "chat.completion"},
                       {"created", m_created},
                       {"model", m_model},
                       {"choices", Json::array({choice})},
                       {"usage", usage(promptTokens, completionTokens)}});
}

std::string ChatResponder::chunk(const Json &delta, const char *finishReason) const
{
    const Json choice{{"index", 0},
                      {"delta", delta},
                      {"logprobs", nullptr},
                      {"finish_reason", finishReason ? Json(finishReason) : Json(nullptr)}};
    return "data: " +
           dumped(Json{{"id", m_id},
                       {"object", "chat.completion.chunk"},
                       {"created", m_created},
                       {"model", m_model},
                       {"choices", Json::array({choice})}}) +
           "\n\n";
}

std::string ChatResponder::roleChunk() const
{
    return chunk(Json{{"role", "assistant"}, {"content", ""}}, nullptr);
}

std::string ChatResponder::contentChunk(const std::string &text) const
{
    return chunk(Json{{"content", text}}, nullptr);
}

std::string ChatResponder::finishChunk() const
{
    return chunk(Json::object(), "length");
}

std::string ChatResponder::usageChunk(int promptTokens, int completionTokens) const
{
    return "data: " +
           dumped(Json{{"id", m_id},
                       {"object", "chat.completion.chunk"},
                       {"created", m_created},
                       {"model", m_model},
                       {"choices", Json::array()},
                       {"usage", usage(promptTokens, completionTokens)}}) +
           "\n\n";
}

std::string ChatResponder::doneEvent()
{
    return "data: [DONE]\n\n";
}

std::string ChatResponder::errorBody(const std::string &message, const std::string &type, int code)
{
    return dumped(Json{
        {"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", code}}}});
}

std::string ChatResponder::errorEvent(const std::string &message, const std::string &type, int code)
{
    return "data: " + errorBody(message, type, code) + "\n\n";
}

} // namespace opsdeck::sim
