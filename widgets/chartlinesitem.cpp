#include "chartlinesitem.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

ChartLinesItem::ChartLinesItem(QGraphicsItem *parent) : QGraphicsItem(parent)
{
    // Where Qt Charts puts its series: above the grid and axes, below the
    // legend, the markers (10) and the crosshair.
    setZValue(4);
    setAcceptedMouseButtons(Qt::NoButton);
}

int ChartLinesItem::addLine(const QPen &pen)
{
    m_lines.append({{}, pen, true});
    return static_cast<int>(m_lines.size() - 1);
}

void ChartLinesItem::setPoints(int index, const QList<QPointF> &points)
{
    m_lines[index].points = points;
    update();
}

void ChartLinesItem::setPen(int index, const QPen &pen)
{
    m_lines[index].pen = pen;
    update();
}

void ChartLinesItem::setLineVisible(int index, bool visible)
{
    m_lines[index].visible = visible;
    update();
}

void ChartLinesItem::setDomain(const QRectF &plotArea, double x0, double x1, double y0, double y1)
{
    if (plotArea != m_plotArea) {
        prepareGeometryChange();
        m_plotArea = plotArea;
    }
    m_x0 = x0;
    m_x1 = x1 > x0 ? x1 : x0 + 1;
    m_y0 = y0;
    m_y1 = y1 > y0 ? y1 : y0 + 1;
    update();
}

QPointF ChartLinesItem::positionOf(QPointF value) const
{
    const double xScale = m_plotArea.width() / (m_x1 - m_x0);
    const double yScale = m_plotArea.height() / (m_y1 - m_y0);
    return {m_plotArea.left() + (value.x() - m_x0) * xScale,
            m_plotArea.bottom() - (value.y() - m_y0) * yScale};
}

void ChartLinesItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    if (m_plotArea.isEmpty())
        return;
    painter->save();
    painter->setClipRect(m_plotArea);
    painter->setRenderHint(QPainter::Antialiasing);
    for (const Line &line : std::as_const(m_lines))
        if (line.visible && line.points.size() > 1)
            drawLine(painter, line);
    painter->restore();
}

void ChartLinesItem::drawLine(QPainter *painter, const Line &line)
{
    const double xScale = m_plotArea.width() / (m_x1 - m_x0);
    const double yScale = m_plotArea.height() / (m_y1 - m_y0);
    const auto map = [&](QPointF value) {
        return QPointF(m_plotArea.left() + (value.x() - m_x0) * xScale,
                       m_plotArea.bottom() - (value.y() - m_y0) * yScale);
    };
    // Segments are cut where they leave a band a few plot sizes around the
    // plot: a sample hours before a minute-wide window would otherwise map
    // to millions of pixels, past what the rasterizer's fixed point holds.
    const double band = 4 * std::max(m_plotArea.width(), m_plotArea.height());
    const double left = m_plotArea.left() - band;
    const double right = m_plotArea.right() + band;
    const auto cut = [](QPointF outside, QPointF inside, double x) {
        const double t = (x - inside.x()) / (outside.x() - inside.x());
        return QPointF(x, inside.y() + t * (outside.y() - inside.y()));
    };
    const auto flush = [&] {
        // Segment by segment, as Qt Charts does: drawPolyline() strokes the
        // whole line into one polygon that crosses itself thousands of times
        // (min/max columns), and filling that made the frame 16 times slower.
        m_segments.clear();
        for (qsizetype i = 1; i < m_polyline.size(); ++i)
            m_segments.append(QLineF(m_polyline[i - 1], m_polyline[i]));
        if (!m_segments.isEmpty())
            painter->drawLines(m_segments);
        m_polyline.clear();
    };
    painter->setPen(line.pen);
    m_polyline.reserve(line.points.size());
    QPointF previous;
    bool hasPrevious = false; // a finite point right before this one
    for (const QPointF &value : line.points) {
        if (!std::isfinite(value.y())) {
            flush();
            hasPrevious = false;
            continue;
        }
        QPointF point = map(value);
        point.setY(std::clamp(point.y(), m_plotArea.top() - band, m_plotArea.bottom() + band));
        if (point.x() < left) {
            // x ascends: only the last point left of the band matters.
            previous = point;
            hasPrevious = true;
            continue;
        }
        if (hasPrevious && previous.x() < left)
            m_polyline.append(cut(previous, point, left));
        if (point.x() > right) {
            if (hasPrevious)
                m_polyline.append(cut(point, previous, right));
            break;
        }
        m_polyline.append(point);
        previous = point;
        hasPrevious = true;
    }
    flush();
}
