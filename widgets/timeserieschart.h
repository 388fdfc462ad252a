#pragma once

#include <QColor>
#include <QHash>
#include <QPointF>
#include <QWidget>
#include <deque>
#include <functional>

class QChart;
class QChartView;
class QDateTimeAxis;
class QLineSeries;
class QValueAxis;

/// The one chart widget every panel uses: named line series over a time
/// axis (x in ms since the Unix epoch), a fixed visible window ending now,
/// and a y axis that starts at 0 and grows with the data.
///
/// Points are handed over whole with setPoints() and drawn with
/// QLineSeries::replace() (never point by point); when there are more points
/// than pixels they are reduced to each pixel column's first, min, max and
/// last value, so peaks survive decimation. Thread: GUI thread.
class TimeSeriesChart : public QWidget
{
    Q_OBJECT
public:
    explicit TimeSeriesChart(QWidget *parent = nullptr);

    /// Adds a series; `unit` is shown on the y axis title (e.g. "requests").
    void addSeries(const QString &name, const QColor &color);
    void setUnit(const QString &unit);
    /// Visible span ending at the newest point, ms (while less data exists,
    /// the span of the data, at least one minute).
    void setWindowMs(qint64 windowMs);
    /// Replaces the points of one series (x ascending, ms since epoch).
    void setPoints(const QString &name, const QList<QPointF> &points);
    /// Points currently drawn for `name` (after decimation).
    qsizetype pointCount(const QString &name) const;

    /// Reduces `points` to at most 4 per pixel column over `columns` columns.
    static QList<QPointF> decimate(const QList<QPointF> &points, int columns);

private:
    void updateAxes();

    QChart *m_chart;
    QChartView *m_view;
    QDateTimeAxis *m_timeAxis;
    QValueAxis *m_valueAxis;
    QHash<QString, QLineSeries *> m_series;
    qint64 m_windowMs = 5 * 60 * 1000;
    qint64 m_newestMs = 0;
    qint64 m_oldestMs = 0; ///< first point ever drawn; 0 before any
    double m_maxValue = 0;
};
