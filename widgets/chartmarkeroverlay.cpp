#include "chartmarkeroverlay.h"

#include <QFontMetricsF>
#include <QPainter>
#include <algorithm>

namespace {
constexpr qreal padding = 4;
constexpr qreal maxLabelWidth = 360; // fits a knob name and a verb
constexpr int maxRows = 3;
} // namespace

ChartMarkerOverlay::ChartMarkerOverlay(QGraphicsItem *parent) : QGraphicsItem(parent)
{
    // Above the series, below the crosshair.
    setZValue(10);
    setAcceptedMouseButtons(Qt::NoButton);
}

void ChartMarkerOverlay::setMarkers(const QVector<ChartMarker> &markers)
{
    m_markers = markers;
    std::stable_sort(
        m_markers.begin(), m_markers.end(),
        [](const ChartMarker &a, const ChartMarker &b) { return a.timeMs < b.timeMs; });
}

void ChartMarkerOverlay::setColors(const QColor &marker, const QColor &labelBackground)
{
    m_color = marker;
    m_labelBackground = labelBackground;
    update();
}

void ChartMarkerOverlay::setFont(const QFont &font)
{
    m_font = font;
}

void ChartMarkerOverlay::layout(const QRectF &plotArea, qint64 startMs, qint64 endMs)
{
    prepareGeometryChange();
    m_plotArea = plotArea;
    m_placed.clear();
    if (endMs <= startMs || plotArea.width() <= 0)
        return;
    const QFontMetricsF metrics(m_font);
    const qreal rowHeight = metrics.height() + 2 * padding + 2;
    qreal rowRight[maxRows];
    std::fill(std::begin(rowRight), std::end(rowRight), -1e9);
    for (int i = 0; i < m_markers.size(); ++i) {
        const ChartMarker &marker = m_markers[i];
        if (marker.timeMs < startMs || marker.timeMs > endMs)
            continue;
        const qreal x = plotArea.left() + plotArea.width() * double(marker.timeMs - startMs) /
                                              double(endMs - startMs);
        const QString full =
            marker.kind.isEmpty() ? marker.text : marker.kind + QStringLiteral(": ") + marker.text;
        const QString text = metrics.elidedText(full, Qt::ElideRight, maxLabelWidth);
        const qreal width = metrics.horizontalAdvance(text) + 2 * padding;
        qreal left = x + 3;
        if (left + width > plotArea.right())
            left = x - 3 - width;
        left = std::max(left, plotArea.left());
        // The first row where the label does not overlap the previous one;
        // when all are taken, the row that frees up first.
        int row = 0;
        for (int r = 0; r < maxRows; ++r) {
            if (rowRight[r] + 4 <= left) {
                row = r;
                break;
            }
            if (rowRight[r] < rowRight[row])
                row = r;
        }
        rowRight[row] = left + width;
        const QRectF label(left, plotArea.top() + 2 + row * rowHeight, width,
                           metrics.height() + 2 * padding);
        m_placed.append({i, x, label, text});
    }
    update();
}

QStringList ChartMarkerOverlay::visibleLabels() const
{
    QStringList labels;
    for (const Placed &placed : m_placed)
        labels.append(placed.text);
    return labels;
}

const ChartMarker *ChartMarkerOverlay::markerNear(qreal x, qreal tolerance) const
{
    const Placed *best = nullptr;
    for (const Placed &placed : m_placed)
        if (std::abs(placed.x - x) <= tolerance &&
            (!best || std::abs(placed.x - x) < std::abs(best->x - x)))
            best = &placed;
    return best ? &m_markers[best->index] : nullptr;
}

QRectF ChartMarkerOverlay::boundingRect() const
{
    return m_plotArea.adjusted(-2, -2, 2, 2);
}

void ChartMarkerOverlay::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    painter->save();
    QPen line(m_color, 1.5, Qt::DashLine);
    painter->setFont(m_font);
    const QFontMetricsF metrics(m_font);
    for (const Placed &placed : std::as_const(m_placed)) {
        painter->setRenderHint(QPainter::Antialiasing, false);
        painter->setPen(line);
        painter->drawLine(QPointF(placed.x, m_plotArea.top()),
                          QPointF(placed.x, m_plotArea.bottom()));
        painter->setRenderHint(QPainter::Antialiasing, true);
        painter->setPen(QPen(m_color, 1));
        painter->setBrush(m_labelBackground);
        painter->drawRoundedRect(placed.label, 3, 3);
        painter->drawText(
            QPointF(placed.label.left() + padding, placed.label.top() + padding + metrics.ascent()),
            placed.text);
    }
    painter->restore();
}
