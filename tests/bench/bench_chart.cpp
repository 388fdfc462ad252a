// Cost of drawing a day of 1 s samples: 8 series × 86,400 points on a plot
// 1200 px wide (GUI thread, antialiased lines). TimeSeriesChart draws its
// lines through OpenGL or raster (see its header; the "opengl" counter says
// which): on Qt's offscreen platform (the default here, and ctest's) raster;
// for the OpenGL path run it under X, e.g. on this machine's software GL:
//   xvfb-run -a env QT_QPA_PLATFORM=xcb OPSDECK_CHART_OPENGL=1 build/bin/bench_chart
// (FullFrame then renders the OpenGL lines through QOpenGLWidget's
// framebuffer, in Mesa's threads: count CPU, not wall time.)
//
//   DecimateOnly        ChartDecimator alone on the 8 series: our share of
//                       the next one.
//   DecimateAndReplace  TimeSeriesChart: setPoints() for the 8 series, then
//                       the frame: cut to the visible range, min/max
//                       decimation to the plot width, the points handed to
//                       the lines (ChartLinesItem on raster; on OpenGL
//                       QLineSeries::replace() with Qt Charts' own update).
//                       No painting.
//   FullFrame           the same, then the whole widget rendered to a QImage.
//   NaiveReplaceAll     what a plain Qt Charts user does: every point of the
//                       8 series handed to QLineSeries::replace(), then the
//                       chart view rendered to a QImage of the same size.
//
// Each benchmark runs --repetitions times (default 10); read the _median rows.
// Extra flags (besides Google Benchmark's own):
//   --points=N        points per series, default 86400 (24 h at 1 s)
//   --repetitions=N   repetitions per benchmark, default 10
//   --frame-png=PATH  saves FullFrame's last image, to see what was timed
// Times are wall-clock milliseconds per frame; CPU is the whole process's
// (every thread) per frame.

#include "chartdecimator.h"
#include "timeserieschart.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QImage>
#include <QLineSeries>
#include <QPainter>
#include <QValueAxis>
#include <benchmark/benchmark.h>
#include <cmath>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>

namespace {

constexpr int seriesCount = 8;
constexpr int plotPx = 1200;
constexpr int chartHeight = 420;
constexpr qint64 t0 = 1'790'000'000'000;
int g_points = 86'400;
int g_repetitions = 10;
QString g_framePng;

QString seriesName(int series)
{
    return QStringLiteral("decode-%1 tokens/s").arg(series);
}

const QList<QList<QPointF>> &data()
{
    // Slow waves plus a sawtooth: every pixel column has a real min and max.
    static const QList<QList<QPointF>> series = [] {
        QList<QList<QPointF>> all;
        for (int s = 0; s < seriesCount; ++s) {
            QList<QPointF> points;
            points.reserve(g_points);
            for (int i = 0; i < g_points; ++i)
                points.append({double(t0 + i * 1000LL),
                               1000 + 300 * s + 200 * std::sin(i / 3000.0 + s) + (i % 97) * 3});
            all.append(points);
        }
        return all;
    }();
    return series;
}

// Grows or shrinks `widget` until its plot area is `px` wide: the axes'
// label widths decide the plot width, so it takes a few rounds.
void fitPlotWidth(QWidget *widget, const std::function<int()> &plotWidth, int px)
{
    for (int round = 0; round < 20 && plotWidth() != px; ++round) {
        widget->resize(widget->width() + px - plotWidth(), chartHeight);
        for (int i = 0; i < 10; ++i)
            QApplication::processEvents();
    }
    if (plotWidth() != px) {
        std::cerr << "bench_chart: plot is " << plotWidth() << " px wide, wanted " << px << "\n";
        std::exit(2);
    }
}

// Made on first use, destroyed in main() before the QApplication.
std::unique_ptr<TimeSeriesChart> g_chart;

TimeSeriesChart &chart()
{
    if (g_chart)
        return *g_chart;
    g_chart = std::make_unique<TimeSeriesChart>();
    for (int s = 0; s < seriesCount; ++s)
        g_chart->addSeries(seriesName(s), QColor::fromHsv(s * 45, 200, 180));
    g_chart->setUnit(QStringLiteral("tokens/s"));
    g_chart->setWindowMs(qint64(g_points) * 1000);
    g_chart->resize(plotPx + 100, chartHeight);
    g_chart->show();
    for (int s = 0; s < seriesCount; ++s)
        g_chart->setPoints(seriesName(s), data()[s]);
    g_chart->flush();
    fitPlotWidth(
        g_chart.get(), [] { return g_chart->plotWidthPx(); }, plotPx);
    g_chart->flush();
    return *g_chart;
}

void drawFrame(TimeSeriesChart &target)
{
    for (int s = 0; s < seriesCount; ++s)
        target.setPoints(seriesName(s), data()[s]);
    target.flush();
}

void reportDrawn(benchmark::State &state, TimeSeriesChart &target)
{
    qsizetype drawn = 0;
    for (int s = 0; s < seriesCount; ++s)
        drawn += target.pointCount(seriesName(s));
    state.counters["points_in"] = double(seriesCount) * g_points;
    state.counters["points_drawn"] = double(drawn);
    state.counters["plot_px"] = target.plotWidthPx();
    state.counters["opengl"] = TimeSeriesChart::drawsWithOpenGl() ? 1 : 0;
}

void decimateAndReplace(benchmark::State &state)
{
    TimeSeriesChart &target = chart();
    for (auto _ : state)
        drawFrame(target);
    reportDrawn(state, target);
}

// Our share of DecimateAndReplace: the decimation alone, no Qt Charts.
void decimateOnly(benchmark::State &state)
{
    for (auto _ : state) {
        for (int s = 0; s < seriesCount; ++s) {
            const QList<QPointF> &points = data()[s];
            QList<QPointF> drawn =
                ChartDecimator::decimate(points.constData(), points.constData() + points.size(),
                                         points.front().x(), points.back().x(), plotPx);
            benchmark::DoNotOptimize(drawn.constData());
        }
    }
}

void fullFrame(benchmark::State &state)
{
    TimeSeriesChart &target = chart();
    QImage image(target.size(), QImage::Format_ARGB32_Premultiplied);
    for (auto _ : state) {
        drawFrame(target);
        target.render(&image);
        benchmark::DoNotOptimize(image.constBits());
    }
    if (!g_framePng.isEmpty())
        image.save(g_framePng);
    reportDrawn(state, target);
}

struct NaiveChart
{
    NaiveChart()
    {
        auto *timeAxis = new QDateTimeAxis;
        auto *valueAxis = new QValueAxis;
        timeAxis->setFormat(QStringLiteral("HH:mm"));
        chart->addAxis(timeAxis, Qt::AlignBottom);
        chart->addAxis(valueAxis, Qt::AlignLeft);
        for (int s = 0; s < seriesCount; ++s) {
            auto *line = new QLineSeries;
            line->setName(seriesName(s));
            line->setPen(QPen(QColor::fromHsv(s * 45, 200, 180), 2.0));
            chart->addSeries(line);
            line->attachAxis(timeAxis);
            line->attachAxis(valueAxis);
            lines.append(line);
        }
        timeAxis->setRange(QDateTime::fromMSecsSinceEpoch(t0),
                           QDateTime::fromMSecsSinceEpoch(t0 + (g_points - 1) * 1000LL));
        valueAxis->setRange(0, 4000);
        view->setRenderHint(QPainter::Antialiasing);
        view->resize(plotPx + 100, chartHeight);
        view->show();
        fitPlotWidth(
            view.get(), [&] { return static_cast<int>(chart->plotArea().width()); }, plotPx);
    }
    QChart *chart = new QChart;
    std::unique_ptr<QChartView> view = std::make_unique<QChartView>(chart);
    QList<QLineSeries *> lines;
};

std::unique_ptr<NaiveChart> g_naive;

void naiveReplaceAll(benchmark::State &state)
{
    if (!g_naive)
        g_naive = std::make_unique<NaiveChart>();
    NaiveChart &naive = *g_naive;
    QImage image(naive.view->size(), QImage::Format_ARGB32_Premultiplied);
    for (auto _ : state) {
        for (int s = 0; s < seriesCount; ++s)
            naive.lines[s]->replace(data()[s]);
        // QWidget::render, as for TimeSeriesChart (QGraphicsView hides it).
        static_cast<QWidget *>(naive.view.get())->render(&image);
        benchmark::DoNotOptimize(image.constBits());
    }
    state.counters["points_in"] = double(seriesCount) * g_points;
    state.counters["plot_px"] = naive.chart->plotArea().width();
}

// Removes our own --name=value flags from argv; returns false on a bad value.
bool takeFlag(int &argc, char **argv, const char *name, int &value)
{
    const std::size_t length = std::strlen(name);
    for (int i = 1; i < argc; ++i) {
        if (std::strncmp(argv[i], name, length) != 0)
            continue;
        value = std::atoi(argv[i] + length);
        for (int j = i; j + 1 < argc; ++j)
            argv[j] = argv[j + 1];
        --argc;
        return value > 0;
    }
    return true;
}

// Removes --frame-png=PATH from argv.
void takeFramePng(int &argc, char **argv)
{
    const char *name = "--frame-png=";
    for (int i = 1; i < argc; ++i) {
        if (std::strncmp(argv[i], name, std::strlen(name)) != 0)
            continue;
        g_framePng = QString::fromLocal8Bit(argv[i] + std::strlen(name));
        for (int j = i; j + 1 < argc; ++j)
            argv[j] = argv[j + 1];
        --argc;
        return;
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    if (!takeFlag(argc, argv, "--points=", g_points) ||
        !takeFlag(argc, argv, "--repetitions=", g_repetitions)) {
        std::cerr << "bench_chart: --points and --repetitions take a positive number\n";
        return 2;
    }
    takeFramePng(argc, argv);
    QApplication app(argc, argv);
    for (const auto &[name, function] :
         {std::pair{"DecimateOnly", &decimateOnly},
          std::pair{"DecimateAndReplace", &decimateAndReplace}, std::pair{"FullFrame", &fullFrame},
          std::pair{"NaiveReplaceAll", &naiveReplaceAll}}) {
        benchmark::RegisterBenchmark(name, function)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            // All threads: on the OpenGL path, Mesa's llvmpipe rasterizes in its own.
            ->MeasureProcessCPUTime()
            ->Repetitions(g_repetitions)
            ->ReportAggregatesOnly(true);
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 2;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    g_chart.reset();
    g_naive.reset();
    return 0;
}
