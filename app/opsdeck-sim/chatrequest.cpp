#include "chatrequest.h"

#include "jsonvalue.h"
#include "textgenerator.h"

#include <cmath>

namespace opsdeck::sim {

namespace {

// Text of one message's content: a string, or the text parts of an array.
bool contentText(const JsonValue &content, std::string &out)
{
    if (content.isString()) {
        out += content.text();
        return true;
    }
    if (content.isNull())
        return true;
    if (!content.isArray())
        return false;
    for (const JsonValue &part : content.elements()) {
        if (!part.isObject())
            return false;
        if (const JsonValue *text = part.find("text"); text && text->isString())
            out += text->text();
    }
    return true;
}

bool positiveInt(const JsonValue &value, int &out)
{
    if (!value.isNumber() || value.number() < 1 || value.number() > 1e7 ||
        value.number() != std::floor(value.number()))
        return false;
    out = static_cast<int>(value.number());
    return true;
}

} // namespace

std::optional<ChatRequest> ChatRequest::parse(const std::string &body, std::string &error)
{
    std::string parseError;
    const auto doc = JsonValue::parse(body, &parseError);
    if (!doc) {
        error = "Invalid JSON body: " + parseError;
        return std::nullopt;
    }
    if (!doc->isObject()) {
        error = "The request body must be a JSON object";
        return std::nullopt;
    }
    ChatRequest request;
    if (const JsonValue *model = doc->find("model"); model && model->isString())
        request.m_model = model->text();

    const JsonValue *messages = doc->find("messages");
    if (!messages || !messages->isArray() || messages->elements().empty()) {
        error = "'messages' must be a non-empty array";
        return std::nullopt;
    }
    std::string prompt;
    for (const JsonValue &message : messages->elements()) {
        const JsonValue *content = message.isObject() ? message.find("content") : nullptr;
        if (!message.isObject() || (content && !contentText(*content, prompt))) {
            error = "each message must be an object with a string or text-part content";
            return std::nullopt;
        }
    }
    request.m_promptTokens = std::max(1, static_cast<int>((prompt.size() + 3) / 4));
    request.m_seed = TextGenerator::seedFor(prompt);

    for (const char *name : {"max_tokens", "max_completion_tokens"}) {
        const JsonValue *value = doc->find(name);
        if (!value || value->isNull())
            continue;
        if (!positiveInt(*value, request.m_maxTokens)) {
            error = std::string("'") + name + "' must be a positive integer of at most 2^31 - 1";
            return std::nullopt;
        }
        break;
    }
    if (const JsonValue *stream = doc->find("stream"); stream && stream->isBool())
        request.m_stream = stream->boolean();
    if (const JsonValue *options = doc->find("stream_options"); options && options->isObject()) {
        if (const JsonValue *usage = options->find("include_usage"); usage && usage->isBool())
            request.m_includeUsage = usage->boolean();
    }

    const JsonValue *room = doc->find("bootstrap_room");
    if (room && !room->isNull()) {
        request.m_bootstrapRoom = room->toUint64();
        if (!request.m_bootstrapRoom) {
            error = "'bootstrap_room' must be a non-negative integer";
            return std::nullopt;
        }
        const JsonValue *host = doc->find("bootstrap_host");
        const JsonValue *port = doc->find("bootstrap_port");
        if (!host || !host->isString() || !port || !positiveInt(*port, request.m_bootstrapPort)) {
            error = "'bootstrap_room' needs 'bootstrap_host' (string) and 'bootstrap_port'";
            return std::nullopt;
        }
        request.m_bootstrapHost = host->text();
    }
    return request;
}

} // namespace opsdeck::sim
