#pragma once

#include <QString>
#include <optional>

namespace opsdeck::inventory {

/// A duration as people write it in the inventory and on the command line:
/// "90" or "90s" (seconds), "1.5s", "500ms", "10m", "1h": digits, an optional
/// fraction with digits, an optional unit, nothing around (YAML trims plain
/// values itself; a quoted " 60s" or "60s\n" is refused).
/// Returns seconds, or nullopt for anything else (a sign, an exponent, "60.s",
/// a space inside, NaN). Pure; any thread.
std::optional<double> parseDurationS(const QString &text);

} // namespace opsdeck::inventory
