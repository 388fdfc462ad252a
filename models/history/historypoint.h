#pragma once

#include <QtGlobal>

namespace opsdeck::history {

/// One point of a history query: a raw sample where raw samples are still
/// kept (then min == max == value), else a 1-minute rollup (value = mean of
/// the minute's finite samples, at the minute's start).
struct HistoryPoint
{
    qint64 timeMs = 0; ///< ms since the Unix epoch
    double value = 0;
    double min = 0;
    double max = 0;
    bool rollup = false; ///< true when the point is a 1-minute rollup
};

} // namespace opsdeck::history
