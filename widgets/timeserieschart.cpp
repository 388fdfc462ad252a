#include "timeserieschart.h"

#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QLineSeries>
#include <QVBoxLayout>
#include <QValueAxis>
#include <cmath>

TimeSeriesChart::TimeSeriesChart(QWidget *parent)
    : QWidget(parent), m_chart(new QChart), m_view(new QChartView(m_chart, this)),
      m_timeAxis(new QDateTimeAxis), m_valueAxis(new QValueAxis)
{
    m_chart->legend()->setAlignment(Qt::AlignTop);
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_chart->setBackgroundRoundness(0);
    m_timeAxis->setFormat(QStringLiteral("HH:mm:ss"));
    m_timeAxis->setTickCount(6);
    m_valueAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_valueAxis->setMin(0);
    m_chart->addAxis(m_timeAxis, Qt::AlignBottom);
    m_chart->addAxis(m_valueAxis, Qt::AlignLeft);
    m_view->setRenderHint(QPainter::Antialiasing);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    updateAxes();
}

void TimeSeriesChart::addSeries(const QString &name, const QColor &color)
{
    auto *series = new QLineSeries;
    series->setName(name);
    QPen pen(color);
    pen.setWidthF(2.0);
    series->setPen(pen);
    m_chart->addSeries(series);
    series->attachAxis(m_timeAxis);
    series->attachAxis(m_valueAxis);
    m_series.insert(name, series);
}

void TimeSeriesChart::setUnit(const QString &unit)
{
    m_valueAxis->setTitleText(unit);
}

void TimeSeriesChart::setWindowMs(qint64 windowMs)
{
    m_windowMs = windowMs;
    updateAxes();
}

QList<QPointF> TimeSeriesChart::decimate(const QList<QPointF> &points, int columns)
{
    if (columns <= 0 || points.size() <= 4 * columns)
        return points;
    const double first = points.front().x();
    const double span = std::max(1.0, points.back().x() - first);
    QList<QPointF> reduced;
    reduced.reserve(4 * columns);
    qsizetype start = 0;
    while (start < points.size()) {
        const int column = static_cast<int>((points[start].x() - first) / span * (columns - 1));
        qsizetype end = start;
        qsizetype minAt = start;
        qsizetype maxAt = start;
        while (end < points.size() &&
               static_cast<int>((points[end].x() - first) / span * (columns - 1)) == column) {
            if (points[end].y() < points[minAt].y())
                minAt = end;
            if (points[end].y() > points[maxAt].y())
                maxAt = end;
            ++end;
        }
        // First, extremes in time order, last: the line keeps its shape and peaks.
        reduced.append(points[start]);
        const auto [low, high] = std::minmax(minAt, maxAt);
        if (low != start)
            reduced.append(points[low]);
        if (high != low && high != end - 1)
            reduced.append(points[high]);
        if (end - 1 != start)
            reduced.append(points[end - 1]);
        start = end;
    }
    return reduced;
}

void TimeSeriesChart::setPoints(const QString &name, const QList<QPointF> &points)
{
    QLineSeries *series = m_series.value(name);
    if (!series)
        return;
    const int columns = std::max(1, static_cast<int>(m_chart->plotArea().width()));
    series->replace(decimate(points, columns));
    double maxValue = 0;
    for (const auto *each : std::as_const(m_series))
        for (const QPointF &point : each->points())
            maxValue = std::max(maxValue, point.y());
    m_maxValue = maxValue;
    if (!points.isEmpty()) {
        m_newestMs = std::max(m_newestMs, static_cast<qint64>(points.back().x()));
        m_oldestMs = m_oldestMs ? std::min(m_oldestMs, static_cast<qint64>(points.front().x()))
                                : static_cast<qint64>(points.front().x());
    }
    updateAxes();
}

qsizetype TimeSeriesChart::pointCount(const QString &name) const
{
    const QLineSeries *series = m_series.value(name);
    return series ? series->count() : 0;
}

void TimeSeriesChart::updateAxes()
{
    const qint64 newest = m_newestMs ? m_newestMs : QDateTime::currentMSecsSinceEpoch();
    // Until the data fills the window, show the data (at least a minute)
    // rather than a plot that is empty but for its right edge.
    const qint64 span =
        m_oldestMs ? std::clamp<qint64>(newest - m_oldestMs, 60 * 1000, m_windowMs) : m_windowMs;
    m_timeAxis->setRange(QDateTime::fromMSecsSinceEpoch(newest - span),
                         QDateTime::fromMSecsSinceEpoch(newest));
    // Four intervals of a "nice" size (1, 2 or 5 × 10^n), so the labels are
    // round numbers and the axis does not twitch on every sample.
    const double interval = std::max(4.0, m_maxValue * 1.1) / 4;
    const double magnitude = std::pow(10.0, std::floor(std::log10(interval)));
    double nice = magnitude;
    for (const double factor : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        nice = factor * magnitude;
        if (nice >= interval)
            break;
    }
    m_valueAxis->setRange(0, 4 * nice);
    m_valueAxis->setTickCount(5);
    m_valueAxis->setLabelFormat(nice < 1 || nice == 2.5 * magnitude ? QStringLiteral("%.1f")
                                                                    : QStringLiteral("%.0f"));
}
