#pragma once

#include <QtGlobal>

namespace opsdeck::history {

/// One recorded value of one series at one time. Plain data, 16 bytes.
struct Sample
{
    qint64 timeMs = 0; ///< ms since the Unix epoch
    double value = 0;  ///< in the series' unit; NaN and ±Inf are kept exactly
};

} // namespace opsdeck::history
