#pragma once

#include <QCommandLineParser>
#include <QString>
#include <optional>

namespace opsdeck::cli {

/// The value of the option `name` ("idle-gap" for --idle-gap, "n" for -n) as
/// a number written with digits and an optional fraction ("5", "0.5"), from
/// `min` to `max`; `fallback` when the option is absent. A sign, an exponent
/// ("1e3"), a space, "nan" or "inf" are bad input, as they would be read two
/// ways. Bad input prints "bad --name 'value': <what> from <min> to <max>"
/// (`what`: "seconds", "milliseconds", ...) and returns nullopt (exit 2).
std::optional<double> numberOption(const QCommandLineParser &parser, const QString &name,
                                   double min, double max, double fallback, const QString &what);

/// The same for a whole number: digits only ("1.5" and "1e2" are bad input).
std::optional<int> wholeNumberOption(const QCommandLineParser &parser, const QString &name, int min,
                                     int max, int fallback, const QString &what);

} // namespace opsdeck::cli
