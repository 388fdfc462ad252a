// TimeSeriesChart offscreen: decimation keeps each pixel column's extremes,
// setPoints() calls in one frame cost one replace per series, and the mouse,
// buttons, legend, markers, palette and crosshair behave as documented.
// Interaction is driven with real QMouseEvent / QWheelEvent on the chart
// view's viewport.
#include "testsupport.h"
#include "timeserieschart.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QImage>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QMouseEvent>
#include <QRandomGenerator>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QValueAxis>
#include <QWheelEvent>
#include <QWindow>
#include <QtNumeric>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <memory>

using namespace std::chrono_literals;
using opsdeck::test::waitUntil;

namespace {

const QString running = QStringLiteral("running requests");
const QString waiting = QStringLiteral("waiting requests");
constexpr qint64 t0 = 1'790'000'000'000; // a fixed epoch ms, so failures reproduce

// `seconds` samples at 1 s from t0; value(i) gives y.
QList<QPointF> samples(int seconds, const std::function<double(int)> &value)
{
    QList<QPointF> points;
    points.reserve(seconds);
    for (int i = 0; i < seconds; ++i)
        points.append({double(t0 + i * 1000LL), value(i)});
    return points;
}

// A shown 900×420 chart with two series over a 5-minute window.
struct ShownChart
{
    ShownChart()
    {
        chart->addSeries(running, QColor(0x15, 0x65, 0xc0));
        chart->addSeries(waiting, QColor(0xef, 0x6c, 0x00));
        chart->setUnit(QStringLiteral("requests"));
        chart->setWindowMs(5 * 60 * 1000);
        chart->resize(900, 420);
        chart->show();
        view = chart->findChild<QChartView *>();
        EXPECT_TRUE(waitUntil([&] { return view->chart()->plotArea().width() > 500; }, 5s));
    }
    QRectF plot() const { return view->chart()->plotArea(); }
    QPointF viewportPos(QPointF chartPos) const
    {
        return view->mapFromScene(view->chart()->mapToScene(chartPos));
    }
    // The x of `timeMs` in chart coordinates, under the drawn time axis.
    qreal xOf(qint64 timeMs) const
    {
        const double start = double(chart->visibleStartMs());
        const double end = double(chart->visibleEndMs());
        return plot().left() + plot().width() * (double(timeMs) - start) / (end - start);
    }
    void mouse(QEvent::Type type, QPointF chartPos, Qt::MouseButton button = Qt::NoButton)
    {
        const QPointF pos = viewportPos(chartPos);
        QMouseEvent event(type, pos, view->viewport()->mapToGlobal(pos), button,
                          type == QEvent::MouseButtonRelease ? Qt::NoButton
                                                             : Qt::MouseButtons(button),
                          Qt::NoModifier);
        QApplication::sendEvent(view->viewport(), &event);
    }
    void wheel(QPointF chartPos, int angle, Qt::KeyboardModifiers modifiers = Qt::NoModifier)
    {
        const QPointF pos = viewportPos(chartPos);
        QWheelEvent event(pos, view->viewport()->mapToGlobal(pos), QPoint(), QPoint(0, angle),
                          Qt::NoButton, modifiers, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view->viewport(), &event);
    }
    std::pair<qint64, qint64> axisRange() const
    {
        const auto *axis =
            qobject_cast<QDateTimeAxis *>(view->chart()->axes(Qt::Horizontal).first());
        return {axis->min().toMSecsSinceEpoch(), axis->max().toMSecsSinceEpoch()};
    }
    QLineSeries *line(const QString &name) const
    {
        for (QAbstractSeries *series : view->chart()->series())
            if (series->name() == name)
                return qobject_cast<QLineSeries *>(series);
        return nullptr;
    }
    QToolButton *button(const QString &text) const
    {
        for (QToolButton *each : chart->findChildren<QToolButton *>())
            if (each->text() == text)
                return each;
        return nullptr;
    }

    std::unique_ptr<TimeSeriesChart> chart = std::make_unique<TimeSeriesChart>();
    QChartView *view = nullptr;
};

} // namespace

TEST(TimeSeriesChart, DecimationKeepsEachColumnsMinAndMaxAndAtMostFourPoints)
{
    QRandomGenerator random(42);
    QList<QPointF> points;
    for (int i = 0; i < 86400; ++i)
        points.append({double(i) * 1000.0, random.bounded(1000.0)});
    points[50000].setY(5000); // one spike must survive
    const int columns = 800;
    const QList<QPointF> reduced = TimeSeriesChart::decimate(points, columns);

    // The documented mapping: x over the points' own span onto `columns` columns.
    const double x0 = points.front().x();
    const double scale = columns / (points.back().x() - x0);
    const auto columnOf = [&](const QPointF &p) {
        return std::clamp(int((p.x() - x0) * scale), 0, columns - 1);
    };
    std::map<int, std::pair<double, double>> inputExtremes;
    for (const QPointF &p : points) {
        auto [it, fresh] = inputExtremes.try_emplace(columnOf(p), p.y(), p.y());
        it->second = {std::min(it->second.first, p.y()), std::max(it->second.second, p.y())};
    }
    std::map<int, std::vector<double>> outputByColumn;
    for (const QPointF &p : reduced)
        outputByColumn[columnOf(p)].push_back(p.y());
    ASSERT_EQ(outputByColumn.size(), inputExtremes.size());
    for (const auto &[column, ys] : outputByColumn) {
        EXPECT_LE(ys.size(), 4u) << "column " << column;
        EXPECT_EQ(*std::min_element(ys.begin(), ys.end()), inputExtremes[column].first)
            << "column " << column;
        EXPECT_EQ(*std::max_element(ys.begin(), ys.end()), inputExtremes[column].second)
            << "column " << column;
    }
    EXPECT_LE(reduced.size(), 4 * columns);
    EXPECT_EQ(reduced.front(), points.front());
    EXPECT_EQ(reduced.back(), points.back());
    EXPECT_TRUE(std::any_of(reduced.begin(), reduced.end(),
                            [](const QPointF &p) { return p.y() == 5000; }));
    for (qsizetype i = 1; i < reduced.size(); ++i)
        EXPECT_LT(reduced[i - 1].x(), reduced[i].x()) << "x stays ascending at " << i;
}

TEST(TimeSeriesChart, FewPointsAreDrawnAsGiven)
{
    TimeSeriesChart chart;
    chart.addSeries(running, Qt::blue);
    chart.setPoints(running, {{1000, 1}, {2000, 5}, {3000, 2}});
    EXPECT_TRUE(waitUntil([&] { return chart.pointCount(running) == 3; }, 5s));
    EXPECT_EQ(chart.pointCount(QStringLiteral("no such series")), 0);
}

TEST(TimeSeriesChart, DrawsToThePlotWidthInPixels)
{
    ShownChart shown;
    shown.chart->setWindowMs(24 * 3600 * 1000);
    shown.chart->setPoints(running, samples(86400, [](int i) { return i % 97; }));
    ASSERT_TRUE(waitUntil([&] { return shown.chart->pointCount(running) > 0; }, 5s));
    EXPECT_EQ(shown.chart->plotWidthPx(), int(shown.plot().width()));
    EXPECT_LE(shown.chart->pointCount(running), 4 * shown.chart->plotWidthPx() + 2);
    EXPECT_GT(shown.chart->pointCount(running), 2 * shown.chart->plotWidthPx());
}

TEST(TimeSeriesChart, SetPointsInOneFrameCoalesceIntoOneReplacePerSeries)
{
    ShownChart shown;
    // Settle the axes first so the batch below cannot change the plot width.
    shown.chart->setPoints(running, samples(60, [](int i) { return i % 40; }));
    shown.chart->setPoints(waiting, samples(60, [](int i) { return i % 40; }));
    shown.chart->flush();
    const int runningBefore = shown.chart->replaceCount(running);
    const int waitingBefore = shown.chart->replaceCount(waiting);
    // On the OpenGL path the points go to the QLineSeries: count those too.
    int seriesReplaces = 0;
    QObject::connect(shown.line(running), &QLineSeries::pointsReplaced, [&] { ++seriesReplaces; });
    const auto runningReplaces = [&] { return shown.chart->replaceCount(running) - runningBefore; };
    const auto waitingReplaces = [&] { return shown.chart->replaceCount(waiting) - waitingBefore; };

    for (int n = 61; n <= 80; ++n) {
        shown.chart->setPoints(running, samples(n, [](int i) { return i % 40; }));
        shown.chart->setPoints(waiting, samples(n, [](int i) { return (i + 7) % 40; }));
    }
    EXPECT_EQ(runningReplaces(), 0) << "setPoints draws at the next frame, not at once";
    ASSERT_TRUE(waitUntil([&] { return runningReplaces() > 0 && waitingReplaces() > 0; }, 5s));
    auto *frameTimer = shown.chart->findChild<QTimer *>(QStringLiteral("frameTimer"));
    ASSERT_TRUE(frameTimer);
    ASSERT_TRUE(waitUntil([&] { return !frameTimer->isActive(); }, 5s));
    EXPECT_EQ(runningReplaces(), 1);
    EXPECT_EQ(waitingReplaces(), 1);
    EXPECT_EQ(seriesReplaces, TimeSeriesChart::drawsWithOpenGl() ? 1 : 0);
    EXPECT_EQ(shown.chart->pointCount(running), 80);
    EXPECT_EQ(shown.chart->drawnPoints(waiting).at(79).y(), (79 + 7) % 40);
}

// Whether a pixel within `radius` rows of `pos` (viewport) is `color`:
// antialiasing blends the edges, the middle of a 2 px line is the pen.
bool lineNear(const QImage &image, QPoint pos, const QColor &color, int radius)
{
    for (int dy = -radius; dy <= radius; ++dy) {
        const QPoint at = pos + QPoint(0, dy);
        if (!image.valid(at))
            continue;
        const QColor pixel = image.pixelColor(at);
        if (std::abs(pixel.red() - color.red()) + std::abs(pixel.green() - color.green()) +
                std::abs(pixel.blue() - color.blue()) <
            40)
            return true;
    }
    return false;
}

// The pixels, on whichever path this platform uses: a line lies where Qt
// Charts' own axes map its values, breaks at a NaN, reaches the plot's
// left edge from a sample a year before the window, and goes when hidden.
TEST(TimeSeriesChart, LinesAreDrawnWhereTheAxesPutTheirValues)
{
    ShownChart shown;
    QList<QPointF> points{{double(t0 - 365LL * 24 * 3600 * 1000), 5}};
    points += samples(300, [](int i) { return i >= 100 && i < 150 ? qQNaN() : 5.0; });
    shown.chart->setPoints(running, points);
    shown.chart->setPoints(waiting, samples(300, [](int) { return 20; }));
    shown.chart->flush();
    QApplication::processEvents();
    const QColor pen = shown.line(running)->pen().color();
    const auto at = [&](qint64 timeMs, double value) {
        const qreal y = shown.view->chart()->mapToPosition({0, value}, shown.line(running)).y();
        return shown.viewportPos({shown.xOf(timeMs), y}).toPoint();
    };
    QImage image = shown.view->grab().toImage();
    EXPECT_TRUE(lineNear(image, at(t0 + 50'000, 5), pen, 1)) << "a sample's value";
    EXPECT_TRUE(lineNear(image, at(t0 + 250'000, 5), pen, 1)) << "after the gap";
    EXPECT_FALSE(lineNear(image, at(t0 + 125'000, 5), pen, 4)) << "NaN leaves a gap";
    EXPECT_FALSE(lineNear(image, at(t0 + 50'000, 10), pen, 4)) << "nothing above the line";
    const qint64 windowStart = shown.chart->visibleStartMs();
    ASSERT_LT(windowStart, t0);
    EXPECT_TRUE(lineNear(image, at((windowStart + t0) / 2, 5), pen, 1))
        << "the year-old sample's segment reaches the left edge";
    EXPECT_TRUE(lineNear(image, at(t0 + 50'000, 20), shown.line(waiting)->pen().color(), 1));

    shown.chart->setSeriesVisible(running, false);
    shown.chart->flush();
    QApplication::processEvents();
    image = shown.view->grab().toImage();
    EXPECT_FALSE(lineNear(image, at(t0 + 50'000, 5), pen, 4)) << "a hidden series is not drawn";
}

TEST(TimeSeriesChart, WheelZoomsAroundTheCursorAndStopsFollowing)
{
    ShownChart shown;
    shown.chart->setPoints(running, samples(600, [](int i) { return i % 50; }));
    shown.chart->flush();
    ASSERT_TRUE(shown.chart->isFollowingLive());
    const qint64 start = shown.chart->visibleStartMs();
    const qint64 end = shown.chart->visibleEndMs();
    ASSERT_EQ(end, t0 + 599'000);
    ASSERT_EQ(end - start, 5 * 60 * 1000);

    const QRectF plot = shown.plot();
    const QPointF cursor(plot.left() + plot.width() * 0.25, plot.center().y());
    const double fraction = (cursor.x() - plot.left()) / plot.width();
    const double anchor = double(start) + fraction * double(end - start);
    shown.wheel(cursor, 120); // one notch towards the user: zoom in
    shown.chart->flush();

    EXPECT_FALSE(shown.chart->isFollowingLive());
    const auto [newStart, newEnd] = shown.axisRange();
    EXPECT_NEAR(double(newEnd - newStart), 0.8 * double(end - start), 2);
    EXPECT_LT(newEnd, end) << "zooming at a quarter of the width pulls the right edge in";
    // The time under the cursor stays under the cursor (within one pixel).
    const double msPerPixel = double(end - start) / plot.width();
    EXPECT_NEAR(double(newStart) + fraction * double(newEnd - newStart), anchor, msPerPixel);

    // New data no longer moves the view.
    shown.chart->setPoints(running, samples(660, [](int i) { return i % 50; }));
    shown.chart->flush();
    EXPECT_EQ(shown.axisRange(), std::make_pair(newStart, newEnd));
}

TEST(TimeSeriesChart, DragPansAndDoubleClickReturnsToLive)
{
    ShownChart shown;
    shown.chart->setPoints(running, samples(900, [](int i) { return i % 50; }));
    shown.chart->flush();
    const qint64 end = shown.chart->visibleEndMs();
    const QRectF plot = shown.plot();
    const QPointF from(plot.center());
    const QPointF to(plot.center().x() + plot.width() / 4, plot.center().y());
    shown.mouse(QEvent::MouseButtonPress, from, Qt::LeftButton);
    shown.mouse(QEvent::MouseMove, to, Qt::LeftButton);
    shown.mouse(QEvent::MouseButtonRelease, to, Qt::LeftButton);
    shown.chart->flush();
    EXPECT_FALSE(shown.chart->isFollowingLive());
    // Dragging right by a quarter of the plot shows a quarter of the window earlier.
    EXPECT_NEAR(double(shown.axisRange().second), double(end) - 75'000, 1000);
    ASSERT_TRUE(shown.button(QStringLiteral("Live"))->isEnabled());

    shown.chart->setPoints(running, samples(960, [](int i) { return i % 50; }));
    shown.mouse(QEvent::MouseButtonDblClick, plot.center(), Qt::LeftButton);
    shown.chart->flush();
    EXPECT_TRUE(shown.chart->isFollowingLive());
    EXPECT_EQ(shown.axisRange().second, t0 + 959'000) << "back at the newest point";
    EXPECT_FALSE(shown.button(QStringLiteral("Live"))->isEnabled());
}

TEST(TimeSeriesChart, PauseKeepsTheAxisRangeWhileNewPointsArrive)
{
    ShownChart shown;
    shown.chart->setPoints(running, samples(400, [](int i) { return i % 50; }));
    shown.chart->flush();
    const auto frozen = shown.axisRange();
    QToolButton *pause = shown.button(QStringLiteral("Pause"));
    ASSERT_TRUE(pause);
    pause->click();
    EXPECT_TRUE(shown.chart->isPaused());

    for (int n = 410; n <= 460; n += 10)
        shown.chart->setPoints(running, samples(n, [](int i) { return i % 50; }));
    auto *frameTimer = shown.chart->findChild<QTimer *>(QStringLiteral("frameTimer"));
    ASSERT_TRUE(waitUntil([&] { return !frameTimer->isActive(); }, 5s));
    EXPECT_EQ(shown.axisRange(), frozen);

    pause->click(); // unpause: jump to now, with the points that arrived meanwhile
    ASSERT_TRUE(waitUntil([&] { return shown.axisRange().second == t0 + 459'000; }, 5s));
    EXPECT_TRUE(shown.chart->isFollowingLive());
    EXPECT_EQ(shown.chart->drawnPoints(running).back().x(), double(t0 + 459'000));
}

TEST(TimeSeriesChart, LegendClickHidesASeriesAndTheValueAxisRescales)
{
    ShownChart shown;
    shown.chart->setPoints(running, samples(120, [](int i) { return i % 10; }));
    shown.chart->setPoints(waiting, samples(120, [](int) { return 400; }));
    shown.chart->flush();
    const auto *valueAxis =
        qobject_cast<QValueAxis *>(shown.view->chart()->axes(Qt::Vertical).first());
    ASSERT_GE(valueAxis->max(), 400);

    // Click along the legend until an entry reacts: the legend lays out its
    // entries itself, so their exact positions are not ours to know.
    const QRectF legend = shown.view->chart()->legend()->geometry();
    for (qreal x = legend.left() + 2; x < legend.right() && shown.chart->isSeriesVisible(running) &&
                                      shown.chart->isSeriesVisible(waiting);
         x += 4) {
        shown.mouse(QEvent::MouseButtonPress, {x, legend.center().y()}, Qt::LeftButton);
        shown.mouse(QEvent::MouseButtonRelease, {x, legend.center().y()}, Qt::LeftButton);
    }
    // The entries are in insertion order: the first to react is "running".
    ASSERT_FALSE(shown.chart->isSeriesVisible(running));
    EXPECT_TRUE(shown.chart->isSeriesVisible(waiting));
    EXPECT_FALSE(shown.line(running)->isVisible());

    shown.chart->setSeriesVisible(running, true);
    shown.chart->setSeriesVisible(waiting, false);
    shown.chart->flush();
    EXPECT_LT(valueAxis->max(), 20) << "the y axis fits the visible series only";
}

TEST(TimeSeriesChart, MarkersAreDrawnWithTheirText)
{
    ShownChart shown;
    shown.chart->setPoints(running, samples(300, [](int i) { return i % 20; }));
    shown.chart->setMarkers({
        {t0 + 60'000, QStringLiteral("knob"),
         QStringLiteral("SGLANG_SM120_MMA_TARGET_CTAS reverted")},
        {t0 + 120'000, QStringLiteral("restart"), QStringLiteral("decode restarted")},
        {t0 - 3'600'000, QStringLiteral("restart"), QStringLiteral("an hour before: off screen")},
    });
    shown.chart->flush();
    EXPECT_EQ(shown.chart->markerCount(), 3);
    EXPECT_EQ(shown.chart->visibleMarkerLabels(),
              QStringList({QStringLiteral("knob: SGLANG_SM120_MMA_TARGET_CTAS reverted"),
                           QStringLiteral("restart: decode restarted")}));

    // A diagnosis marker's label is shown whole when the plot has room.
    const QString diagnosis = QStringLiteral(
        "keep-alive stall at proxy-0 (proxy): reused connections stall, fresh ones answer");
    shown.chart->setMarkers({{t0 + 60'000, QStringLiteral("diagnosis"), diagnosis}});
    shown.chart->flush();
    EXPECT_EQ(shown.chart->visibleMarkerLabels(),
              QStringList{QStringLiteral("diagnosis: ") + diagnosis});

    // A text of words wider than the plot wraps: shown whole, on more lines.
    QStringList words;
    for (int i = 0; i < 30; ++i)
        words << QStringLiteral("stalled%1").arg(i, 2, 10, QLatin1Char('0'));
    shown.chart->setMarkers({{t0 + 60'000, QStringLiteral("diagnosis"), words.join(u' ')}});
    shown.chart->flush();
    EXPECT_EQ(shown.chart->visibleMarkerLabels(),
              QStringList{QStringLiteral("diagnosis: ") + words.join(u' ')});

    // A word longer than the plot is wide is elided on the plot, never drawn past it.
    const QString longText(400, QLatin1Char('x'));
    shown.chart->setMarkers(
        {{t0 + 60'000, QStringLiteral("note"), longText},
         {t0 + 120'000, QStringLiteral("restart"), QStringLiteral("decode restarted")}});
    shown.chart->flush();
    ASSERT_EQ(shown.chart->visibleMarkerLabels().size(), 2);
    EXPECT_TRUE(shown.chart->visibleMarkerLabels().first().endsWith(QChar(0x2026)));
    EXPECT_LT(shown.chart->visibleMarkerLabels().first().size(), longText.size());

    // Hovering on a marker's line names it in full in the crosshair label.
    shown.mouse(QEvent::MouseMove, {shown.xOf(t0 + 120'000), shown.plot().center().y()});
    EXPECT_TRUE(shown.chart->crosshairText().contains(QStringLiteral("restart: decode restarted")))
        << shown.chart->crosshairText().toStdString();
    shown.mouse(QEvent::MouseMove, {shown.xOf(t0 + 60'000), shown.plot().center().y()});
    EXPECT_TRUE(shown.chart->crosshairText().contains(QStringLiteral("note: ") + longText));
}

TEST(TimeSeriesChart, PaletteChangeSwitchesTheChartTheme)
{
    ShownChart shown;
    ASSERT_FALSE(shown.chart->isDark()) << "the offscreen default palette is light";
    EXPECT_EQ(shown.view->chart()->theme(), QChart::ChartThemeLight);
    const QColor lightPen = shown.line(running)->pen().color();

    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x20, 0x22, 0x26));
    dark.setColor(QPalette::Base, QColor(0x18, 0x1a, 0x1e));
    dark.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
    shown.chart->setPalette(dark);
    EXPECT_TRUE(shown.chart->isDark());
    EXPECT_EQ(shown.view->chart()->theme(), QChart::ChartThemeDark);
    EXPECT_EQ(shown.view->chart()->backgroundBrush().color(), QColor(0x18, 0x1a, 0x1e));
    const QColor darkPen = shown.line(running)->pen().color();
    EXPECT_GT(darkPen.lightness(), lightPen.lightness()) << "dark blue lifted to read on dark";

    shown.chart->setPalette(QPalette(QColor(0xf4, 0xf4, 0xf4)));
    EXPECT_FALSE(shown.chart->isDark());
    EXPECT_EQ(shown.view->chart()->theme(), QChart::ChartThemeLight);
}

TEST(TimeSeriesChart, CrosshairLabelGivesTheTimeAndEachValueWithItsUnit)
{
    ShownChart shown;
    shown.chart->setPoints(running, samples(300, [](int i) { return i; }));
    shown.chart->setPoints(waiting, samples(300, [](int i) { return i * 0.25; }));
    shown.chart->flush();
    EXPECT_TRUE(shown.chart->crosshairText().isEmpty());

    const qint64 hovered = t0 + 200'000; // sample 200
    shown.mouse(QEvent::MouseMove, {shown.xOf(hovered), shown.plot().center().y()});
    const QString text = shown.chart->crosshairText();
    EXPECT_TRUE(text.startsWith(
        QDateTime::fromMSecsSinceEpoch(hovered).toString(QStringLiteral("HH:mm:ss"))))
        << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("running requests: 200 requests")))
        << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("waiting requests: 50 requests")))
        << text.toStdString();

    shown.chart->setSeriesVisible(waiting, false);
    shown.chart->flush();
    EXPECT_FALSE(shown.chart->crosshairText().contains(waiting)) << "hidden series are not listed";

    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(shown.view->viewport(), &leave);
    EXPECT_TRUE(shown.chart->crosshairText().isEmpty());
}

TEST(TimeSeriesChart, SourceTooltipOutsideThePlot)
{
    ShownChart shown;
    const QString source =
        QStringLiteral("num_running_reqs of decode-0, summed over dp ranks, from /v1/loads");
    shown.chart->setSourceTooltip(source);
    EXPECT_EQ(shown.chart->sourceTooltip(), source);
    // Below the plot, on the time axis labels.
    const QPointF onAxis(shown.plot().center().x(), shown.plot().bottom() + 10);
    const QPoint pos = shown.viewportPos(onAxis).toPoint();
    QHelpEvent help(QEvent::ToolTip, pos, shown.view->viewport()->mapToGlobal(pos));
    QApplication::sendEvent(shown.view->viewport(), &help);
    EXPECT_TRUE(waitUntil([&] { return QToolTip::isVisible(); }, 5s));
    EXPECT_EQ(QToolTip::text(), source);
    QToolTip::hideText();
}

// Through the window, as a real pointer: the event goes to the widget under
// it, which on the OpenGL path is Qt Charts' QOpenGLWidget over the plot; it
// takes presses on a line unless made transparent for the mouse. (On the
// offscreen platform lines are raster-drawn and the viewport is under it.)
TEST(TimeSeriesChart, PointerOnALineHoversAndDragsTheChart)
{
    ShownChart shown;
    shown.chart->setPoints(running, samples(900, [](int) { return 5; }));
    shown.chart->flush();
    const QRectF plot = shown.plot();
    const qreal lineY = shown.view->chart()->mapToPosition({0, 5}, shown.line(running)).y();
    const QPointF onLine(plot.center().x(), lineY);
    QWidget *window = shown.chart->window();
    const auto send = [&](QEvent::Type type, QPointF chartPos, Qt::MouseButton button) {
        const QPointF pos =
            shown.view->viewport()->mapTo(window, shown.viewportPos(chartPos).toPoint());
        QMouseEvent event(type, pos, window->mapToGlobal(pos), button,
                          type == QEvent::MouseButtonRelease ? Qt::NoButton
                                                             : Qt::MouseButtons(button),
                          Qt::NoModifier);
        QApplication::sendEvent(window->windowHandle(), &event);
    };
    bool glChild = false;
    for (const QWidget *child : shown.view->viewport()->findChildren<QWidget *>())
        glChild = glChild || child->inherits("QOpenGLWidget");
    EXPECT_EQ(glChild, TimeSeriesChart::drawsWithOpenGl());

    send(QEvent::MouseMove, onLine, Qt::NoButton);
    EXPECT_TRUE(shown.chart->crosshairText().contains(QStringLiteral("running requests: 5")))
        << shown.chart->crosshairText().toStdString();
    // OpenGL lines cover scene items: the label is then a window above them.
    const auto *label = shown.view->findChild<QLabel *>(QStringLiteral("crosshairLabel"));
    EXPECT_EQ(label && label->isVisible(), TimeSeriesChart::drawsWithOpenGl());
    send(QEvent::MouseButtonPress, onLine, Qt::LeftButton);
    send(QEvent::MouseMove, onLine + QPointF(plot.width() / 4, 0), Qt::LeftButton);
    send(QEvent::MouseButtonRelease, onLine + QPointF(plot.width() / 4, 0), Qt::LeftButton);
    EXPECT_FALSE(shown.chart->isFollowingLive()) << "the press on the line started a drag";
}
