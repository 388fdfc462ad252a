#pragma once

#include "knobchange.h"
#include "servescript.h"

#include <QVector>

namespace opsdeck::knobs {

/// Two versions of a serve script compared knob by knob, not line by line:
/// what bash would give the server differently (ServeScript::knobs()). A
/// value, whether a variable is exported, and whether a flag has a value
/// count; where and how a knob is written does not. Order: the newer
/// version's knobs in file order, then the removed ones in the older's order.
/// Pure; any thread.
QVector<KnobChange> knobDiff(const ServeScript &before, const ServeScript &after);

} // namespace opsdeck::knobs
