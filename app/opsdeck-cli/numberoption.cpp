#include "numberoption.h"

#include "clioutput.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace opsdeck::cli {

namespace {

std::optional<double> parsed(const QCommandLineParser &parser, const QString &name, double min,
                             double max, const QString &what, bool whole)
{
    static const QRegularExpression decimal(u"^[0-9]+(\\.[0-9]+)?$"_s);
    static const QRegularExpression digits(u"^[0-9]+$"_s);
    const QString text = parser.value(name);
    const double value = text.toDouble();
    if ((whole ? digits : decimal).match(text).hasMatch() && value >= min && value <= max)
        return value;
    printError(u"bad %1%2 '%3': %4 from %5 to %6"_s
                   .arg(name.size() == 1 ? u"-"_s : u"--"_s, name, text, what)
                   .arg(min)
                   .arg(max));
    return std::nullopt;
}

} // namespace

std::optional<double> numberOption(const QCommandLineParser &parser, const QString &name,
                                   double min, double max, double fallback, const QString &what)
{
    if (!parser.isSet(name))
        return fallback;
    return parsed(parser, name, min, max, what, false);
}

std::optional<int> wholeNumberOption(const QCommandLineParser &parser, const QString &name, int min,
                                     int max, int fallback, const QString &what)
{
    if (!parser.isSet(name))
        return fallback;
    const std::optional<double> value = parsed(parser, name, min, max, what, true);
    return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

} // namespace opsdeck::cli
