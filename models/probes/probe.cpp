#include "probe.h"

#include "servermessage.h"

namespace opsdeck::probes {

QString failureOf(const ProbeResult &result)
{
    if (result.ok())
        return {};
    if (result.cancelled)
        return QStringLiteral("cancelled");
    if (!result.error.isEmpty())
        return result.error;
    if (result.status <= 0)
        return QStringLiteral("no answer");
    QString text = QStringLiteral("HTTP %1").arg(result.status);
    if (!result.reason.isEmpty())
        text += u' ' + result.reason;
    const QString message = serverMessage(result.body);
    // SGLang's API-key check says {"error":"Unauthorized"} under a 401
    // "Unauthorized": once is enough.
    if (!message.isEmpty() && message != result.reason)
        text += QStringLiteral(": ") + message;
    return text;
}

QString connectionModeName(ConnectionMode mode)
{
    switch (mode) {
    case ConnectionMode::Fresh:
        return QStringLiteral("fresh");
    case ConnectionMode::Reused:
        return QStringLiteral("reused");
    }
    return QStringLiteral("fresh");
}

QString probeKindName(ProbeKind kind)
{
    switch (kind) {
    case ProbeKind::Get:
        return QStringLiteral("get");
    case ProbeKind::Chat:
        return QStringLiteral("chat");
    case ProbeKind::ChatStream:
        return QStringLiteral("chat-stream");
    }
    return QStringLiteral("get");
}

} // namespace opsdeck::probes
