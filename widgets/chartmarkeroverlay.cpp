#include "chartmarkeroverlay.h"

#include <QFontMetricsF>
#include <QPainter>
#include <algorithm>

namespace {
constexpr qreal padding = 4;
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

QStringList ChartMarkerOverlay::wrapped(const QString &text, const QFontMetricsF &metrics,
                                        qreal width)
{
    QStringList lines;
    QString line;
    const QStringList words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (const QString &word : words) {
        const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (line.isEmpty() || metrics.horizontalAdvance(longer) <= width) {
            line = longer;
            continue;
        }
        lines << line;
        line = word;
    }
    if (!line.isEmpty())
        lines << line;
    if (lines.size() > maxRows) {
        // The last line carries the rest, elided.
        QStringList rest = lines.mid(maxRows - 1);
        lines = lines.mid(0, maxRows - 1);
        lines << rest.join(QLatin1Char(' '));
    }
    for (QString &l : lines)
        l = metrics.elidedText(l, Qt::ElideRight, width);
    return lines;
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
        // Whole: a cut label hides what was done. Wider than the plot, it
        // wraps onto up to three lines; only past those is it elided (the
        // crosshair names it whole).
        const QStringList lines =
            wrapped(full, metrics, std::max<qreal>(60, plotArea.width() - 2 * padding));
        qreal textWidth = 0;
        for (const QString &line : lines)
            textWidth = std::max(textWidth, metrics.horizontalAdvance(line));
        const qreal width = textWidth + 2 * padding;
        const int span = int(lines.size());
        qreal left = x + 3;
        if (left + width > plotArea.right())
            left = x - 3 - width;
        left = std::max(left, plotArea.left());
        // The first rows where the label does not overlap earlier ones; when
        // all are taken, the rows that free up first.
        int row = 0;
        qreal bestRight = 1e18;
        for (int r = 0; r + span <= maxRows; ++r) {
            const qreal right = *std::max_element(rowRight + r, rowRight + r + span);
            if (right + 4 <= left) {
                row = r;
                break;
            }
            if (right < bestRight) {
                bestRight = right;
                row = r;
            }
        }
        std::fill(rowRight + row, rowRight + row + span, left + width);
        const QRectF label(left, plotArea.top() + 2 + row * rowHeight, width,
                           span * metrics.height() + 2 * padding);
        m_placed.append({i, x, label, lines});
    }
    update();
}

QStringList ChartMarkerOverlay::visibleLabels() const
{
    QStringList labels;
    for (const Placed &placed : m_placed)
        labels.append(placed.lines.join(QLatin1Char(' ')));
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
        for (int line = 0; line < placed.lines.size(); ++line)
            painter->drawText(
                QPointF(placed.label.left() + padding,
                        placed.label.top() + padding + metrics.ascent() + line * metrics.height()),
                placed.lines.at(line));
    }
    painter->restore();
}
