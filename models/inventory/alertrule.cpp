#include "alertrule.h"

using namespace Qt::StringLiterals;

namespace opsdeck::inventory {

QString alertKindName(AlertKind kind)
{
    switch (kind) {
    case AlertKind::SchedulerStuck:
        return u"scheduler_stuck"_s;
    case AlertKind::E2eFailing:
        return u"e2e_failing"_s;
    case AlertKind::FailuresRising:
        break;
    }
    return u"failures_rising"_s;
}

std::optional<AlertKind> alertKindFromName(const QString &name)
{
    for (AlertKind kind :
         {AlertKind::SchedulerStuck, AlertKind::E2eFailing, AlertKind::FailuresRising}) {
        if (alertKindName(kind) == name)
            return kind;
    }
    return std::nullopt;
}

int AlertRule::defaultForS(AlertKind kind)
{
    switch (kind) {
    case AlertKind::SchedulerStuck:
        // The rule: a minute of a full queue and an empty batch is not a slow step.
        return 60;
    case AlertKind::E2eFailing:
        return 0;
    case AlertKind::FailuresRising:
        break;
    }
    return 30;
}

} // namespace opsdeck::inventory
