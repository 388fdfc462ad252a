#pragma once

#include <QtGlobal>
#include <cmath>
#include <limits>

namespace opsdeck::history {

/// The 1-minute summary of one series (a row of `rollups_1m`). Only finite
/// samples count: SQLite stores NaN as NULL, and one NaN would poison a mean.
struct Rollup
{
    qint64 minuteMs = 0; ///< start of the minute, ms since the Unix epoch (multiple of 60000)
    double min = std::numeric_limits<double>::infinity();
    double max = -std::numeric_limits<double>::infinity();
    double mean = 0;
    double last = 0;  ///< the latest finite sample of the minute
    qint64 count = 0; ///< finite samples summarised

    static qint64 minuteOf(qint64 timeMs) { return timeMs - ((timeMs % 60000) + 60000) % 60000; }

    void add(double value)
    {
        if (!std::isfinite(value))
            return;
        min = std::min(min, value);
        max = std::max(max, value);
        ++count;
        mean += (value - mean) / static_cast<double>(count);
        last = value;
    }
};

} // namespace opsdeck::history
