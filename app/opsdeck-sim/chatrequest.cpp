#include "chatrequest.h"

#include "simjson.h"
#include "textgenerator.h"

#include <cmath>

namespace opsdeck::sim {

namespace {

// Text of one message's content: a string, or the text parts of an array.
bool contentText(const Json &content, std::string &out)
{
    if (content.is_string()) {
        out += content.get_ref<const std::string &>();
        return true;
    }
    if (content.is_null())
        return true;
    if (!content.is_array())
        return false;
    for (const Json &part : content) {
        if (!part.is_object())
            return false;
        if (const std::string *text = stringMember(part, "text"))
            out += *text;
    }
    return true;
}

bool positiveInt(const Json &value, int &out)
{
    if (!value.is_number())
        return false;
    const double number = value.get<double>();
    if (number < 1 || number > 1e7 || number != std::floor(number))
        return false;
    out = static_cast<int>(number);
    return true;
}

} // namespace

std::optional<ChatRequest> ChatRequest::parse(const std::string &body, std::string &error)
{
    std::string parseError;
    const auto doc = parsedJson(body, &parseError);
    if (!doc) {
        error = "Invalid JSON body: " + parseError;
        return std::nullopt;
    }
    if (!doc->is_object()) {
        error = "The request body must be a JSON object";
        return std::nullopt;
    }
    ChatRequest request;
    if (const std::string *model = stringMember(*doc, "model"))
        request.m_model = *model;

    const Json *messages = memberOf(*doc, "messages");
    if (!messages || !messages->is_array() || messages->empty()) {
        error = "'messages' must be a non-empty array";
        return std::nullopt;
    }
    std::string prompt;
    for (const Json &message : *messages) {
        const Json *content = memberOf(message, "content");
        if (!message.is_object() || (content && !contentText(*content, prompt))) {
            error = "each message must be an object with a string or text-part content";
            return std::nullopt;
        }
    }
    request.m_promptTokens = std::max(1, static_cast<int>((prompt.size() + 3) / 4));
    request.m_seed = TextGenerator::seedFor(prompt);

    for (const char *name : {"max_tokens", "max_completion_tokens"}) {
        const Json *value = memberOf(*doc, name);
        if (!value || value->is_null())
            continue;
        if (!positiveInt(*value, request.m_maxTokens)) {
            error = std::string("'") + name + "' must be a positive integer of at most 2^31 - 1";
            return std::nullopt;
        }
        break;
    }
    if (const Json *stream = memberOf(*doc, "stream"); stream && stream->is_boolean())
        request.m_stream = stream->get<bool>();
    if (const Json *options = memberOf(*doc, "stream_options")) {
        if (const Json *usage = memberOf(*options, "include_usage"); usage && usage->is_boolean())
            request.m_includeUsage = usage->get<bool>();
    }

    const Json *room = memberOf(*doc, "bootstrap_room");
    if (room && !room->is_null()) {
        request.m_bootstrapRoom = unsignedOf(*room);
        if (!request.m_bootstrapRoom) {
            error = "'bootstrap_room' must be a non-negative integer";
            return std::nullopt;
        }
        const std::string *host = stringMember(*doc, "bootstrap_host");
        const Json *port = memberOf(*doc, "bootstrap_port");
        if (!host || !port || !positiveInt(*port, request.m_bootstrapPort)) {
            error = "'bootstrap_room' needs 'bootstrap_host' (string) and 'bootstrap_port'";
            return std::nullopt;
        }
        request.m_bootstrapHost = *host;
    }
    return request;
}

} // namespace opsdeck::sim
