#pragma once

#include "chartmarker.h"

#include <QColor>
#include <QFont>
#include <QGraphicsItem>
#include <QList>
#include <QStringList>
#include <QVector>

class QFontMetricsF;

/// Draws a TimeSeriesChart's markers: a dashed vertical line across the plot
/// at each marker's time and a boxed label "kind: text" at the top of the
/// plot. Labels stay inside the plot area (flipped to the left of their line
/// near the right edge), are elided past 360 px (the crosshair shows them whole), and are stacked
/// in up to three rows when they would overlap. A scene item owned by the chart; GUI thread.
class ChartMarkerOverlay : public QGraphicsItem
{
public:
    explicit ChartMarkerOverlay(QGraphicsItem *parent = nullptr);

    void setMarkers(const QVector<ChartMarker> &markers);
    const QVector<ChartMarker> &markers() const { return m_markers; }
    void setColors(const QColor &marker, const QColor &labelBackground);
    void setFont(const QFont &font);
    /// Places the markers between startMs and endMs over `plotArea`
    /// (chart coordinates); call whenever either changes.
    void layout(const QRectF &plotArea, qint64 startMs, qint64 endMs);
    /// Labels drawn at the last layout(), in time order, as shown (maybe elided).
    QStringList visibleLabels() const;
    /// The marker whose line is within `tolerance` px of x, or nullptr.
    const ChartMarker *markerNear(qreal x, qreal tolerance) const;

    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    struct Placed
    {
        int index; ///< into m_markers
        qreal x;
        QRectF label;
        QStringList lines; ///< the label, wrapped to the plot's width
    };
    /// `text` in lines no wider than `width` (at most the rows there are; the
    /// last one elided when the text needs more).
    static QStringList wrapped(const QString &text, const QFontMetricsF &metrics, qreal width);

    QVector<ChartMarker> m_markers;
    QList<Placed> m_placed;
    QRectF m_plotArea;
    QFont m_font;
    QColor m_color;
    QColor m_labelBackground;
};
