#include "probe.h"

namespace opsdeck::probes {

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
