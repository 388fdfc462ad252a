#include "probe.h"

#include "servermessage.h"

namespace opsdeck::probes {

QString failureOf(const ProbeResult &result)
{
    if (result.ok())
        return {};
    if (result.cancelled)
        return QStringLiteral("cancelled");
    // A status that came says most; a 2xx that failed (cut, no token) or no
    // status at all says what went wrong instead.
    if (result.status <= 0 || (result.status >= 200 && result.status < 300))
        return result.error.isEmpty() ? QStringLiteral("no answer") : result.error;
    QString text = QStringLiteral("HTTP %1").arg(result.status);
    if (!result.reason.isEmpty())
        text += u' ' + result.reason;
    const QString message = serverMessage(result.body);
    // SGLang's API-key check says {"error":"Unauthorized"} under a 401
    // "Unauthorized": once is enough.
    if (!message.isEmpty() && message != result.reason)
        text += QStringLiteral(": ") + message;
    if (!result.error.isEmpty())
        text += QStringLiteral(" (") + result.error + u')';
    return text;
}

QString transferProblem(const ProbeResult &result, int timeoutMs, qint64 maxBytes)
{
    if (result.timedOut)
        return QStringLiteral("no answer within %1 ms").arg(timeoutMs);
    if (result.tooLarge)
        return QStringLiteral("body larger than %1 bytes").arg(maxBytes);
    if (result.tlsFailed)
        return QStringLiteral("TLS verification failed: %1").arg(result.error);
    if (result.error.isEmpty() && !result.cancelled)
        return {};
    const QString text = result.connectError.isEmpty()
                             ? (result.error.isEmpty() ? QStringLiteral("cancelled") : result.error)
                             : result.connectError;
    if (result.status != 0)
        return QStringLiteral("HTTP %1, then %2").arg(result.status).arg(text);
    return text;
}

QString totalTimeText(const ProbeResult &result)
{
    if (result.timedOut)
        return QStringLiteral("> %1 s (timed out)").arg(result.totalMs / 1000.0, 0, 'f', 1);
    if (result.totalMs >= 1000)
        return QStringLiteral("%1 s").arg(result.totalMs / 1000.0, 0, 'f', 2);
    return QStringLiteral("%1 ms").arg(result.totalMs, 0, 'f', 1);
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
    case ProbeKind::Delete:
        return QStringLiteral("delete");
    }
    return QStringLiteral("get");
}

} // namespace opsdeck::probes
