#pragma once

#include <QList>
#include <QPointF>

/// Min/max decimation for line charts: what TimeSeriesChart draws instead of
/// every sample. Pure function, any thread.
class ChartDecimator
{
public:
    /// Maps the x of [begin, end) (ascending) onto `columns` pixel columns
    /// over [x0, x1] (points outside fall into the edge columns) and keeps,
    /// per column, the first, the minimum, the maximum and the last point,
    /// in time order, without repeats: at most 4 per column, so a line drawn
    /// through them has the same pixels' extent as the full line and no
    /// peak is lost. Ranges of at most 4 × columns points are returned whole.
    static QList<QPointF> decimate(const QPointF *begin, const QPointF *end, double x0, double x1,
                                   int columns);
};
