#include "duration.h"

#include <cmath>
#include <utility>

namespace opsdeck::inventory {

std::optional<double> parseDurationS(const QString &text)
{
    const QString trimmed = text.trimmed();
    // Longest suffix first: "ms" before "s".
    static const std::pair<const char *, double> units[] = {
        {"ms", 0.001}, {"s", 1}, {"m", 60}, {"h", 3600}};
    QString number = trimmed;
    double scale = 1;
    for (const auto &[suffix, factor] : units) {
        if (trimmed.endsWith(QLatin1String(suffix))) {
            number = trimmed.chopped(int(qstrlen(suffix)));
            scale = factor;
            break;
        }
    }
    bool ok = false;
    const double value = number.toDouble(&ok);
    if (!ok || number.isEmpty() || !std::isfinite(value) || value < 0)
        return std::nullopt;
    return value * scale;
}

} // namespace opsdeck::inventory
