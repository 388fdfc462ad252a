#include "sshconnectionstate.h"

namespace opsdeck::remote {

QString SshConnectionState::describe() const
{
    const auto retry = [this](const QString &text) {
        if (reconnectInMs <= 0)
            return text;
        // Whole seconds, rounded up: "in 0 s" would read as "now".
        return QStringLiteral("reconnecting in %1 s: %2")
            .arg((reconnectInMs + 999) / 1000)
            .arg(text);
    };
    switch (phase) {
    case Phase::Disconnected:
        return reason.isEmpty() ? retry(QStringLiteral("disconnected")) : retry(reason);
    case Phase::Connecting:
        return QStringLiteral("connecting");
    case Phase::Authenticating:
        return QStringLiteral("authenticating");
    case Phase::Connected:
        return QStringLiteral("connected");
    case Phase::Failed:
        return reconnectInMs > 0 ? retry(reason) : QStringLiteral("failed: %1").arg(reason);
    }
    return {};
}

} // namespace opsdeck::remote
