#pragma once

#include <QString>
#include <optional>

namespace opsdeck::inventory {

/// A duration as people write it in the inventory and on the command line:
/// "90" or "90s" (seconds), "1.5s", "500ms", "10m", "1h". Returns seconds, or
/// nullopt for anything else (a negative, NaN or unit-less garbage). Pure; any thread.
std::optional<double> parseDurationS(const QString &text);

} // namespace opsdeck::inventory
