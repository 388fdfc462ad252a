#include "alertsettings.h"

namespace opsdeck::inventory {

QVector<AlertRule> AlertSettings::defaultRules()
{
    QVector<AlertRule> rules;
    for (AlertKind kind :
         {AlertKind::SchedulerStuck, AlertKind::E2eFailing, AlertKind::FailuresRising}) {
        AlertRule rule;
        rule.kind = kind;
        rule.forS = AlertRule::defaultForS(kind);
        rules.append(rule);
    }
    return rules;
}

} // namespace opsdeck::inventory
