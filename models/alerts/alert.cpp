#include "alert.h"

using namespace Qt::StringLiterals;

namespace opsdeck::alerts {

QString Alert::key() const
{
    return inventory::alertKindName(kind) + u':' + target;
}

QString Alert::title() const
{
    switch (kind) {
    case inventory::AlertKind::SchedulerStuck:
        return u"Scheduler stuck: "_s + target;
    case inventory::AlertKind::E2eFailing:
        return u"End-to-end probe failing: "_s + target;
    case inventory::AlertKind::FailuresRising:
        break;
    }
    return u"PD failures rising: "_s + target;
}

} // namespace opsdeck::alerts
