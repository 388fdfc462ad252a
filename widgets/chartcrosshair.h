#pragma once

#include <QColor>
#include <QFont>
#include <QGraphicsItem>
#include <QList>
#include <QPointer>
#include <QString>

class QLabel;

/// The hover crosshair of a TimeSeriesChart: a vertical line across the plot
/// at the cursor and a label box near it with a header line (the time) and
/// one line per value, each with a colour swatch. The label is kept inside
/// the plot area (it flips to the left of the line near the right edge).
/// A scene item owned by the chart; GUI thread.
class ChartCrosshair : public QGraphicsItem
{
public:
    struct Line
    {
        QColor color; ///< swatch colour; invalid for no swatch
        QString text;
    };

    explicit ChartCrosshair(QGraphicsItem *parent = nullptr);

    void setColors(const QColor &line, const QColor &text, const QColor &labelBackground,
                   const QColor &labelBorder);
    void setFont(const QFont &font);
    /// Shows the line at x (chart coordinates) across `plotArea`, the label
    /// near the cursor height y.
    void showAt(const QRectF &plotArea, QPointF cursor, const QString &header,
                const QList<Line> &lines);
    /// The label's text, lines joined with '\n'; empty while hidden.
    QString text() const;
    /// Draws the label in a frameless tool window over `owner` (which owns
    /// it) instead of in the scene: lines drawn through OpenGL cover every
    /// scene item, and the label must stay readable over them.
    void setLabelWindow(QWidget *owner);

    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

protected:
    QVariant itemChange(GraphicsItemChange change, const QVariant &value) override;

private:
    QRectF labelRect() const;
    void paintLabel(QPainter *painter, const QRectF &box) const;
    void updateLabelWindow();

    QRectF m_plotArea;
    QPointF m_cursor;
    QString m_header;
    QList<Line> m_lines;
    QFont m_font;
    QColor m_lineColor;
    QColor m_textColor;
    QColor m_labelBackground;
    QColor m_labelBorder;
    QPointer<QLabel> m_labelWindow; ///< null unless setLabelWindow()
};
