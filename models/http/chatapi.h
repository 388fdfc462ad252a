#pragma once

#include <QByteArray>
#include <QString>

namespace opsdeck::probes {

/// The OpenAI-compatible chat API as OpenAI's clients, SGLang and its router
/// speak it: the tiny chat completion every probe sends, and the model list
/// it asks first. One copy for the probe lab, the alerts' end-to-end probe
/// and `opsdeck-cli probe`. Pure; any thread.
struct ChatApi
{
    /// max_tokens of the tiny chat: enough for a first content token, cheap for the engine.
    static constexpr int kTinyChatTokens = 8;

    /// The tiny chat body, compact JSON, keys in this order:
    /// {"model":M,"messages":[{"role":"user","content":"ping"}],"max_tokens":N[,"stream":true]}.
    static QByteArray body(const QString &model, bool stream, int maxTokens = kTinyChatTokens);
    /// The first model id of a /v1/models answer (`data[i].id`, the first
    /// non-empty one); empty when the body has none or is not JSON.
    static QString modelFromModels(const QByteArray &body);
    /// True when a chat completion's answer has a non-empty `choices` list.
    static bool hasChoices(const QByteArray &body);
};

} // namespace opsdeck::probes
