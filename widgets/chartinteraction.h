#pragma once

#include <QObject>
#include <QPointF>
#include <QRectF>

class ChartCrosshair;
class ChartMarkerOverlay;
class QChartView;
class TimeSeriesChart;

/// The mouse side of a TimeSeriesChart, as an event filter on its chart
/// view's viewport: hover shows the crosshair with the values under the
/// pointer; the wheel zooms in time around the pointer (shift+wheel or a
/// horizontal wheel pans); dragging pans; double-click follows live data
/// again; a tooltip over the axes, legend and status line names the source
/// (setSourceTooltip). Presses outside the plot area pass through, so legend
/// clicks reach Qt Charts. GUI thread.
class ChartInteraction : public QObject
{
    Q_OBJECT
public:
    ChartInteraction(TimeSeriesChart *chart, QChartView *view, ChartCrosshair *crosshair,
                     ChartMarkerOverlay *markers);

    /// Re-reads the values under the pointer (after a frame moved the data).
    void refresh();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QPointF chartPos(QPointF viewportPos) const;
    QRectF plotArea() const;
    qint64 timeAt(qreal chartX) const;
    void hover(QPointF chartPos);
    void leave();

    TimeSeriesChart *m_chart;
    QChartView *m_view;
    ChartCrosshair *m_crosshair;
    ChartMarkerOverlay *m_markers;
    bool m_hovering = false;
    QPointF m_hoverPos; ///< chart coordinates of the pointer while over the plot
    bool m_dragging = false;
    QPointF m_dragFrom;
};
