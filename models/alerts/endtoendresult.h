#pragma once

#include <QMetaType>
#include <QString>
#include <QUrl>

namespace opsdeck::alerts {

/// Outcome of one end-to-end probe: a one-token chat completion through a
/// cluster's entry service. Plain data, copied across threads.
struct EndToEndResult
{
    QString cluster; ///< inventory::Cluster::name
    QString service; ///< the entry service it went through (router, proxy or decode)
    QUrl url;        ///< the chat-completions URL (no user info)
    /// True when the answer was HTTP 200 with a JSON body that has a non-empty `choices` list.
    bool ok = false;
    int httpStatus = 0; ///< 0 when no HTTP answer came
    double ms = 0;      ///< time of the chat request, sent to last byte, ms
    /// Why it failed, in words ("HTTP 503: No healthy worker", "no answer within 10000 ms",
    /// "GET /v1/models: Connection refused"); empty when ok.
    QString error;
    QString model;           ///< model name sent (from /v1/models)
    qint64 finishedAtMs = 0; ///< when it finished, ms since the Unix epoch
};

} // namespace opsdeck::alerts

Q_DECLARE_METATYPE(opsdeck::alerts::EndToEndResult)
