#include "processsample.h"

namespace opsdeck::remote {

QString processKindName(ProcessSample::Kind kind)
{
    switch (kind) {
    case ProcessSample::Kind::Main:
        return QStringLiteral("main");
    case ProcessSample::Kind::Child:
        return QStringLiteral("child");
    case ProcessSample::Kind::Parent:
        return QStringLiteral("parent");
    case ProcessSample::Kind::OldInstance:
        return QStringLiteral("old instance");
    }
    return {};
}

QString describeUptime(qint64 seconds)
{
    seconds = std::max<qint64>(seconds, 0);
    const qint64 minutes = seconds / 60;
    const qint64 hours = minutes / 60;
    const qint64 days = hours / 24;
    if (days > 0)
        return QStringLiteral("up %1 d %2 h").arg(days).arg(hours % 24);
    if (hours > 0)
        return QStringLiteral("up %1 h %2 min").arg(hours).arg(minutes % 60);
    if (minutes > 0)
        return QStringLiteral("up %1 min").arg(minutes);
    return QStringLiteral("up %1 s").arg(seconds);
}

} // namespace opsdeck::remote
