#pragma once

#include "knobchange.h"

#include <QJsonArray>
#include <QVector>

namespace opsdeck::cli {

/// Knob changes as the command line's JSON gives them (`knobs diff`,
/// `knobs backups`, `knobs set`, `changed-since`): objects with `name`,
/// `kind`, `before`, `after` and `change` (`added|removed|changed`).
QJsonArray knobChangesJson(const QVector<knobs::KnobChange> &changes);

} // namespace opsdeck::cli
