#include "chartcrosshair.h"

#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QLabel>
#include <QPainter>

namespace {
constexpr qreal padding = 6;
constexpr qreal swatch = 9;
constexpr qreal gap = 10; // between the line and the label
} // namespace

ChartCrosshair::ChartCrosshair(QGraphicsItem *parent) : QGraphicsItem(parent)
{
    setVisible(false);
    // Above the series and the markers: the label must never be hidden by data.
    setZValue(20);
    setAcceptedMouseButtons(Qt::NoButton);
}

void ChartCrosshair::setColors(const QColor &line, const QColor &text,
                               const QColor &labelBackground, const QColor &labelBorder)
{
    m_lineColor = line;
    m_textColor = text;
    m_labelBackground = labelBackground;
    m_labelBorder = labelBorder;
    update();
}

void ChartCrosshair::setFont(const QFont &font)
{
    prepareGeometryChange();
    m_font = font;
}

void ChartCrosshair::showAt(const QRectF &plotArea, QPointF cursor, const QString &header,
                            const QList<Line> &lines)
{
    prepareGeometryChange();
    m_plotArea = plotArea;
    m_cursor = cursor;
    m_header = header;
    m_lines = lines;
    setVisible(true);
    update();
    updateLabelWindow();
}

void ChartCrosshair::setLabelWindow(QWidget *owner)
{
    m_labelWindow =
        new QLabel(owner, Qt::ToolTip | Qt::FramelessWindowHint | Qt::WindowTransparentForInput |
                              Qt::WindowDoesNotAcceptFocus);
    m_labelWindow->setAttribute(Qt::WA_ShowWithoutActivating);
    m_labelWindow->setObjectName(QStringLiteral("crosshairLabel"));
}

void ChartCrosshair::updateLabelWindow()
{
    const QList<QGraphicsView *> views = scene() ? scene()->views() : QList<QGraphicsView *>();
    if (!m_labelWindow || views.isEmpty())
        return;
    const QGraphicsView *view = views.first();
    const QRectF box = labelRect();
    const qreal ratio = view->devicePixelRatioF();
    QPixmap pixmap((box.size() * ratio).toSize());
    pixmap.setDevicePixelRatio(ratio);
    // A window has no alpha over what lies under it: the background is opaque.
    QColor background = m_labelBackground;
    background.setAlpha(255);
    pixmap.fill(background);
    {
        QPainter painter(&pixmap);
        paintLabel(&painter, QRectF(QPointF(0, 0), box.size()).adjusted(0.5, 0.5, -0.5, -0.5));
    }
    m_labelWindow->setPixmap(pixmap);
    const QPoint topLeft =
        view->viewport()->mapToGlobal(view->mapFromScene(mapToScene(box.topLeft())));
    m_labelWindow->setGeometry(QRect(topLeft, box.size().toSize()));
    m_labelWindow->show();
}

QVariant ChartCrosshair::itemChange(GraphicsItemChange change, const QVariant &value)
{
    if (change == ItemVisibleHasChanged && !value.toBool() && m_labelWindow)
        m_labelWindow->hide();
    return QGraphicsItem::itemChange(change, value);
}

QString ChartCrosshair::text() const
{
    if (!isVisible())
        return {};
    QString result = m_header;
    for (const Line &line : m_lines)
        result += QLatin1Char('\n') + line.text;
    return result;
}

QRectF ChartCrosshair::labelRect() const
{
    const QFontMetricsF metrics(m_font);
    qreal width = metrics.horizontalAdvance(m_header);
    for (const Line &line : m_lines)
        width = std::max(width, swatch + 4 + metrics.horizontalAdvance(line.text));
    const QSizeF size(width + 2 * padding,
                      metrics.lineSpacing() * (1 + m_lines.size()) + 2 * padding);
    qreal left = m_cursor.x() + gap;
    if (left + size.width() > m_plotArea.right())
        left = m_cursor.x() - gap - size.width();
    left = std::max(left, m_plotArea.left());
    // Just below the cursor, so the line under the pointer stays visible.
    qreal top = std::clamp(m_cursor.y() + gap, m_plotArea.top(),
                           std::max(m_plotArea.top(), m_plotArea.bottom() - size.height()));
    return QRectF(QPointF(left, top), size);
}

QRectF ChartCrosshair::boundingRect() const
{
    return m_plotArea.adjusted(-1, -1, 1, 1).united(labelRect().adjusted(-1, -1, 1, 1));
}

void ChartCrosshair::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, false);
    painter->setPen(QPen(m_lineColor, 1));
    painter->drawLine(QPointF(m_cursor.x(), m_plotArea.top()),
                      QPointF(m_cursor.x(), m_plotArea.bottom()));

    if (!m_labelWindow)
        paintLabel(painter, labelRect());
    painter->restore();
}

void ChartCrosshair::paintLabel(QPainter *painter, const QRectF &box) const
{
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setPen(QPen(m_labelBorder, 1));
    painter->setBrush(m_labelBackground);
    painter->drawRoundedRect(box, 3, 3);

    const QFontMetricsF metrics(m_font);
    painter->setFont(m_font);
    painter->setPen(m_textColor);
    qreal baseline = box.top() + padding + metrics.ascent();
    painter->drawText(QPointF(box.left() + padding, baseline), m_header);
    for (const Line &line : m_lines) {
        baseline += metrics.lineSpacing();
        if (line.color.isValid()) {
            const QRectF square(box.left() + padding, baseline - metrics.ascent() / 2 - swatch / 2,
                                swatch, swatch);
            painter->fillRect(square, line.color);
        }
        painter->drawText(QPointF(box.left() + padding + swatch + 4, baseline), line.text);
    }
}
