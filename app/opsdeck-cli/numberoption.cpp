#include "numberoption.h"

#include "clioutput.h"
#include "duration.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace opsdeck::cli {

namespace {

QString flagName(const QString &name)
{
    return (name.size() == 1 ? u"-"_s : u"--"_s) + name;
}

} // namespace

std::optional<double> secondsOption(const QCommandLineParser &parser, const QString &name,
                                    double min, double max, double fallback)
{
    if (!parser.isSet(name))
        return fallback;
    const QString text = parser.value(name);
    // The inventory's strict form: nothing around, nothing inside.
    const std::optional<double> seconds = inventory::parseDurationS(text);
    if (seconds && *seconds >= min && *seconds <= max)
        return seconds;
    printError(u"bad %1 '%2': seconds from %3 to %4 (a number, or with s, ms, m or h: 90s, 10m)"_s
                   .arg(flagName(name), text)
                   .arg(min)
                   .arg(max));
    return std::nullopt;
}

std::optional<int> wholeNumberOption(const QCommandLineParser &parser, const QString &name, int min,
                                     int max, int fallback, const QString &what)
{
    if (!parser.isSet(name))
        return fallback;
    // Anchored as a whole: `$` alone would also match before a final newline.
    static const QRegularExpression digits(QRegularExpression::anchoredPattern(u"[0-9]{1,9}"_s));
    const QString text = parser.value(name);
    const int value = text.toInt();
    if (digits.match(text).hasMatch() && value >= min && value <= max)
        return value;
    printError(
        u"bad %1 '%2': %3 from %4 to %5"_s.arg(flagName(name), text, what).arg(min).arg(max));
    return std::nullopt;
}

} // namespace opsdeck::cli
