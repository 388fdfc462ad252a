// TimeSeriesChart's decimation keeps peaks and bounds the points drawn.
#include "timeserieschart.h"

#include <gtest/gtest.h>

TEST(TimeSeriesChart, DecimationKeepsPeaksAndBoundsPoints)
{
    QList<QPointF> points;
    for (int i = 0; i < 86400; ++i)
        points.append({static_cast<double>(i) * 1000.0, static_cast<double>(i % 60)});
    points[50000].setY(1000); // one spike must survive
    const QList<QPointF> reduced = TimeSeriesChart::decimate(points, 800);
    EXPECT_LE(reduced.size(), 4 * 800);
    double maxY = 0;
    for (const QPointF &point : reduced)
        maxY = std::max(maxY, point.y());
    EXPECT_EQ(maxY, 1000);
    EXPECT_EQ(reduced.front(), points.front());
    EXPECT_EQ(reduced.back(), points.back());
    for (qsizetype i = 1; i < reduced.size(); ++i)
        EXPECT_LT(reduced[i - 1].x(), reduced[i].x()) << "x stays ascending at " << i;
}

TEST(TimeSeriesChart, FewPointsAreDrawnAsGiven)
{
    TimeSeriesChart chart;
    chart.addSeries(QStringLiteral("running requests"), Qt::blue);
    chart.setPoints(QStringLiteral("running requests"), {{1000, 1}, {2000, 5}, {3000, 2}});
    EXPECT_EQ(chart.pointCount(QStringLiteral("running requests")), 3);
    EXPECT_EQ(chart.pointCount(QStringLiteral("no such series")), 0);
}
