#include "chartinteraction.h"

#include "chartcrosshair.h"
#include "chartmarkeroverlay.h"
#include "timeserieschart.h"

#include <QChart>
#include <QChartView>
#include <QChildEvent>
#include <QDateTime>
#include <QHelpEvent>
#include <QLineSeries>
#include <QLocale>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace {

constexpr qint64 dayMs = 24 * 60 * 60 * 1000;

// Values as an engineer reads them: 12 requests, 1534 tokens/s, 0.034 s.
QString formatValue(double value)
{
    if (!std::isfinite(value))
        return QString::number(value);
    const double magnitude = std::abs(value);
    if (magnitude != 0 && magnitude < 0.001)
        return QString::number(value, 'g', 3);
    const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3;
    QString text = QLocale::c().toString(value, 'f', decimals);
    if (text.contains(QLatin1Char('.'))) {
        while (text.endsWith(QLatin1Char('0')))
            text.chop(1);
        if (text.endsWith(QLatin1Char('.')))
            text.chop(1);
    }
    return text;
}

// The sample nearest to `timeMs`, or nullptr outside the series' time span.
const QPointF *nearest(const QList<QPointF> &points, double timeMs)
{
    if (points.isEmpty() || timeMs < points.front().x() || timeMs > points.back().x())
        return nullptr;
    auto at = std::lower_bound(points.cbegin(), points.cend(), timeMs,
                               [](const QPointF &point, double t) { return point.x() < t; });
    if (at != points.cbegin() && (at == points.cend() || timeMs - (at - 1)->x() < at->x() - timeMs))
        --at;
    return &*at;
}

} // namespace

ChartInteraction::ChartInteraction(TimeSeriesChart *chart, QChartView *view,
                                   ChartCrosshair *crosshair, ChartMarkerOverlay *markers)
    : QObject(chart), m_chart(chart), m_view(view), m_crosshair(crosshair), m_markers(markers)
{
    m_view->setMouseTracking(true);
    m_view->viewport()->setMouseTracking(true);
    m_view->viewport()->installEventFilter(this);
}

QPointF ChartInteraction::chartPos(QPointF viewportPos) const
{
    return m_view->chart()->mapFromScene(m_view->mapToScene(viewportPos.toPoint()));
}

QRectF ChartInteraction::plotArea() const
{
    return m_view->chart()->plotArea();
}

qint64 ChartInteraction::timeAt(qreal chartX) const
{
    const QRectF plot = plotArea();
    const qint64 start = m_chart->visibleStartMs();
    const qint64 end = m_chart->visibleEndMs();
    const double fraction = plot.width() > 0 ? (chartX - plot.left()) / plot.width() : 1.0;
    return start + std::llround(fraction * double(end - start));
}

void ChartInteraction::refresh()
{
    if (m_hovering && !m_dragging)
        hover(m_hoverPos);
}

void ChartInteraction::hover(QPointF pos)
{
    m_hovering = true;
    m_hoverPos = pos;
    const qint64 timeMs = timeAt(pos.x());
    const QString unit = m_chart->m_unit.isEmpty() ? QString() : QLatin1Char(' ') + m_chart->m_unit;
    QList<ChartCrosshair::Line> lines;
    // The header gives the time of the samples shown (the first series'
    // nearest), not the pointer's, which falls between samples.
    qint64 shownMs = -1;
    for (const auto &series : std::as_const(m_chart->m_series)) {
        if (!series.line->isVisible())
            continue;
        const QPointF *point = nearest(series.points, double(timeMs));
        if (point && shownMs < 0)
            shownMs = static_cast<qint64>(point->x());
        lines.append({series.line->pen().color(),
                      series.name + QStringLiteral(": ") +
                          (point ? formatValue(point->y()) + unit : QStringLiteral("no data"))});
    }
    const bool longSpan = m_chart->visibleEndMs() - m_chart->visibleStartMs() > dayMs;
    const QString header = QDateTime::fromMSecsSinceEpoch(shownMs < 0 ? timeMs : shownMs)
                               .toString(longSpan ? QStringLiteral("yyyy-MM-dd HH:mm:ss")
                                                  : QStringLiteral("HH:mm:ss"));
    // Marker labels may be elided on the plot; the crosshair gives the whole text.
    if (const ChartMarker *marker = m_markers->markerNear(pos.x(), 4)) {
        lines.append({m_chart->m_palette.marker,
                      marker->kind.isEmpty() ? marker->text
                                             : marker->kind + QStringLiteral(": ") + marker->text});
    }
    m_crosshair->showAt(plotArea(), pos, header, lines);
}

void ChartInteraction::leave()
{
    m_hovering = false;
    m_crosshair->setVisible(false);
}

bool ChartInteraction::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != m_view->viewport())
        return false;
    switch (event->type()) {
    case QEvent::ChildPolished: {
        // Qt Charts draws OpenGL series on a QOpenGLWidget child covering the
        // viewport; it would take presses and double-clicks on a line for its
        // series signals (unused here), so every event goes to the viewport.
        auto *child = qobject_cast<QWidget *>(static_cast<QChildEvent *>(event)->child());
        if (child && child->inherits("QOpenGLWidget"))
            child->setAttribute(Qt::WA_TransparentForMouseEvents);
        return false;
    }
    case QEvent::MouseMove: {
        const QPointF pos = chartPos(static_cast<QMouseEvent *>(event)->position());
        const QRectF plot = plotArea();
        if (m_dragging) {
            const double span = double(m_chart->visibleEndMs() - m_chart->visibleStartMs());
            m_chart->panBy(-std::llround((pos.x() - m_dragFrom.x()) / plot.width() * span));
            m_dragFrom = pos;
            return true;
        }
        if (plot.contains(pos)) {
            hover(pos);
            m_view->viewport()->setCursor(Qt::CrossCursor);
        } else {
            leave();
            m_view->viewport()->unsetCursor();
        }
        return false; // the legend reacts to hover too
    }
    case QEvent::MouseButtonPress: {
        auto *mouse = static_cast<QMouseEvent *>(event);
        const QPointF pos = chartPos(mouse->position());
        if (mouse->button() != Qt::LeftButton || !plotArea().contains(pos))
            return false;
        m_dragging = true;
        m_dragFrom = pos;
        leave();
        m_view->viewport()->setCursor(Qt::ClosedHandCursor);
        return true;
    }
    case QEvent::MouseButtonRelease:
        if (!m_dragging)
            return false;
        m_dragging = false;
        m_view->viewport()->setCursor(Qt::CrossCursor);
        hover(chartPos(static_cast<QMouseEvent *>(event)->position()));
        return true;
    case QEvent::MouseButtonDblClick:
        if (!plotArea().contains(chartPos(static_cast<QMouseEvent *>(event)->position())))
            return false;
        m_chart->followLive();
        return true;
    case QEvent::Wheel: {
        auto *wheel = static_cast<QWheelEvent *>(event);
        const QPointF pos = chartPos(wheel->position());
        if (!plotArea().contains(pos))
            return false;
        const QPoint angle = wheel->angleDelta();
        const bool pan = (wheel->modifiers() & Qt::ShiftModifier) || angle.y() == 0;
        const double steps = (angle.y() != 0 ? angle.y() : angle.x()) / 120.0;
        if (pan) {
            const double span = double(m_chart->visibleEndMs() - m_chart->visibleStartMs());
            m_chart->panBy(-std::llround(steps * span / 10));
        } else {
            // 0.8 per notch: five notches zoom in about 3×, and back out exactly.
            m_chart->zoomAround(timeAt(pos.x()), std::pow(0.8, steps));
        }
        return true;
    }
    case QEvent::Leave:
        leave();
        return false;
    case QEvent::ToolTip: {
        auto *help = static_cast<QHelpEvent *>(event);
        if (plotArea().contains(chartPos(help->pos()))) {
            QToolTip::hideText(); // the crosshair label is the hover text there
            return true;
        }
        if (m_chart->sourceTooltip().isEmpty())
            return false;
        QToolTip::showText(help->globalPos(), m_chart->sourceTooltip(), m_view->viewport());
        return true;
    }
    default:
        return false;
    }
}
