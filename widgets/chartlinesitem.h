#pragma once

#include <QGraphicsItem>
#include <QLineF>
#include <QList>
#include <QPen>
#include <QPointF>
#include <QPolygonF>
#include <QRectF>

/// Draws TimeSeriesChart's lines on its raster path: one polyline per series
/// through the (decimated) points it was last given, mapped onto the plot
/// area at paint time. A scene item, child of the QChart; GUI thread.
///
/// Why not Qt Charts' own line item: on every QLineSeries::replace() and on
/// every axis range change (each live frame moves the time axis) it strokes
/// a hit-test outline of the whole line with QPainterPathStroker, about
/// 0.5 µs a point (bench_chart: 25 ms a frame for 8 series on a 1200 px
/// plot). Nothing here uses that outline: the crosshair finds values by
/// time. So handing a frame's points over costs a pointer copy, and mapping
/// them to pixels is done while painting. The chart keeps its QLineSeries,
/// empty, for the legend, the series' pens and the axes.
///
/// Points are (x: ms since the Unix epoch, y: value in the value axis'
/// unit); a non-finite y breaks the line (a gap, as for a missing sample).
class ChartLinesItem : public QGraphicsItem
{
public:
    explicit ChartLinesItem(QGraphicsItem *parent = nullptr);

    /// Adds a line drawn with `pen`, visible; returns its index (0, 1, ...).
    int addLine(const QPen &pen);
    /// Replaces the points of line `index` (implicitly shared, no copy).
    void setPoints(int index, const QList<QPointF> &points);
    const QList<QPointF> &points(int index) const { return m_lines.at(index).points; }
    void setPen(int index, const QPen &pen);
    void setLineVisible(int index, bool visible);
    /// Maps x in [x0, x1] (ms) and y in [y0, y1] onto `plotArea` (chart
    /// coordinates): what the time and value axes show. Lines are clipped to it.
    void setDomain(const QRectF &plotArea, double x0, double x1, double y0, double y1);
    /// Where (x, y) is drawn, in chart coordinates (tests).
    QPointF positionOf(QPointF value) const;

    QRectF boundingRect() const override { return m_plotArea; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    struct Line
    {
        QList<QPointF> points;
        QPen pen;
        bool visible = true;
    };

    void drawLine(QPainter *painter, const Line &line);

    QList<Line> m_lines;
    QRectF m_plotArea;
    double m_x0 = 0;
    double m_x1 = 1;
    double m_y0 = 0;
    double m_y1 = 1;
    QPolygonF m_polyline;     ///< reused by paint(): no allocation per frame
    QList<QLineF> m_segments; ///< likewise
};
