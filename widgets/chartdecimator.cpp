#include "chartdecimator.h"

#include <algorithm>
#include <limits>

QList<QPointF> ChartDecimator::decimate(const QPointF *begin, const QPointF *end, double x0,
                                        double x1, int columns)
{
    const qsizetype count = end - begin;
    if (columns <= 0 || count <= 4 * qsizetype(columns))
        return QList<QPointF>(begin, end);
    const double scale = columns / std::max(1.0, x1 - x0);
    const auto columnOf = [&](const QPointF &point) {
        return std::clamp(static_cast<int>((point.x() - x0) * scale), 0, columns - 1);
    };
    // Points well before the next column's start need no column arithmetic:
    // one compare per point, as this loop is the decimation's whole cost.
    // The margin keeps that shortcut consistent with columnOf() at edges.
    const double margin = 1e-6 / scale;
    const auto nextStart = [&](int column) {
        return column + 1 >= columns ? std::numeric_limits<double>::infinity()
                                     : x0 + (column + 1) / scale - margin;
    };
    QList<QPointF> reduced;
    reduced.reserve(4 * qsizetype(columns));
    const auto emitColumn = [&](const QPointF *first, const QPointF *low, const QPointF *high,
                                const QPointF *last) {
        reduced.append(*first);
        if (low > high)
            std::swap(low, high);
        if (low != first)
            reduced.append(*low);
        if (high != low && high != last)
            reduced.append(*high);
        if (last != first)
            reduced.append(*last);
    };
    const QPointF *first = begin;
    const QPointF *low = begin;
    const QPointF *high = begin;
    int column = columnOf(*begin);
    double boundary = nextStart(column);
    for (const QPointF *point = begin + 1; point != end; ++point) {
        if (point->x() >= boundary) {
            const int next = columnOf(*point);
            if (next != column) {
                emitColumn(first, low, high, point - 1);
                first = low = high = point;
                column = next;
                boundary = nextStart(column);
                continue;
            }
        }
        if (point->y() < low->y())
            low = point;
        if (point->y() > high->y())
            high = point;
    }
    emitColumn(first, low, high, end - 1);
    return reduced;
}
