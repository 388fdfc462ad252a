#include "duration.h"

#include <QRegularExpression>

namespace opsdeck::inventory {

std::optional<double> parseDurationS(const QString &text)
{
    // Digits, an optional fraction with digits, an optional unit: nothing a
    // reader could take two ways ("+60s", "6 0s", "60.s", "1e3").
    // Anchored as a whole: `$` alone would also match before a final newline.
    static const QRegularExpression form(
        QRegularExpression::anchoredPattern(QStringLiteral("([0-9]+(?:\\.[0-9]+)?)(ms|s|m|h)?")));
    const QRegularExpressionMatch match = form.match(text);
    if (!match.hasMatch())
        return std::nullopt;
    const QString unit = match.captured(2);
    const double scale = unit == u"ms" ? 0.001 : unit == u"m" ? 60.0 : unit == u"h" ? 3600.0 : 1.0;
    return match.captured(1).toDouble() * scale;
}

} // namespace opsdeck::inventory
