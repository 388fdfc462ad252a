#pragma once

#include <QCommandLineParser>
#include <QString>
#include <optional>

namespace opsdeck::cli {

/// The value of the option `name` ("idle-gap" for --idle-gap) as a duration
/// in seconds, from `min` to `max`; `fallback` when the option is absent.
/// Written as seconds with digits and an optional fraction ("5", "0.5") or
/// with a unit as in the inventory ("90s", "500ms", "10m", "1h":
/// inventory::parseDurationS). A sign, an exponent ("1e3"), a space, "nan" or
/// "inf" are bad input, as they would be read two ways. Bad input prints
/// "bad --name 'value': seconds from <min> to <max> ..." and returns nullopt (exit 2).
std::optional<double> secondsOption(const QCommandLineParser &parser, const QString &name,
                                    double min, double max, double fallback);

/// The value of the option `name` ("n" for -n, "count" for --count) as a
/// whole number from `min` to `max` written with digits only ("1.5", "1e2",
/// "+5" are bad input); `fallback` when absent. Bad input prints "bad --name
/// 'value': <what> from <min> to <max>" (`what`: "milliseconds", "probes", ...)
/// and returns nullopt (exit 2).
std::optional<int> wholeNumberOption(const QCommandLineParser &parser, const QString &name, int min,
                                     int max, int fallback, const QString &what);

} // namespace opsdeck::cli
