#include "timeserieschart.h"

#include "chartcrosshair.h"
#include "chartdecimator.h"
#include "chartinteraction.h"
#include "chartlinesitem.h"
#include "chartlivebar.h"
#include "chartmarkeroverlay.h"

#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QGuiApplication>
#include <QLegendMarker>
#include <QLineSeries>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace {

constexpr qint64 minuteMs = 60 * 1000;
constexpr qint64 dayMs = 24 * 60 * minuteMs;
constexpr int frameMs = 16; // one frame at 60 Hz

// Whether line series are drawn through OpenGL (see the header). Needs a
// platform whose windows can hold a QOpenGLWidget (Qt's offscreen, minimal,
// vnc and linuxfb ones cannot: an OpenGL series there crashes, even when a
// context can be made through an X display) and a context made current.
// Software renderers (Mesa's llvmpipe under Xvfb or a remote desktop) are
// left out unless OPSDECK_CHART_OPENGL=1: with them the GUI thread stalled
// 1.1-1.6 s instead of 0.4 s in the bad-input watchdog test and memory grew
// by 170 MB. OPSDECK_CHART_OPENGL=0 turns it off. Asked once per process.
bool useOpenGl()
{
    static const bool available = [] {
        const QString setting = qEnvironmentVariable("OPSDECK_CHART_OPENGL");
        if (setting == QLatin1String("0"))
            return false;
        const QString platform = QGuiApplication::platformName();
        if (platform != QLatin1String("xcb") && !platform.startsWith(QLatin1String("wayland")) &&
            platform != QLatin1String("windows") && platform != QLatin1String("cocoa") &&
            platform != QLatin1String("eglfs"))
            return false;
        QOpenGLContext context;
        QOffscreenSurface surface;
        surface.create();
        if (!context.create() || !surface.isValid() || !context.makeCurrent(&surface))
            return false;
        const auto *name = context.functions()->glGetString(GL_RENDERER);
        const QString renderer = QString::fromLatin1(reinterpret_cast<const char *>(name));
        const bool software = renderer.contains(QLatin1String("llvmpipe")) ||
                              renderer.contains(QLatin1String("softpipe")) ||
                              renderer.contains(QLatin1String("Software Rasterizer"));
        context.doneCurrent();
        return !software || setting == QLatin1String("1");
    }();
    return available;
}

} // namespace

TimeSeriesChart::TimeSeriesChart(QWidget *parent)
    : QWidget(parent), m_chart(new QChart), m_view(new QChartView(m_chart, this)),
      m_timeAxis(new QDateTimeAxis), m_valueAxis(new QValueAxis),
      m_lines(useOpenGl() ? nullptr : new ChartLinesItem(m_chart)),
      m_crosshair(new ChartCrosshair(m_chart)), m_markers(new ChartMarkerOverlay(m_chart)),
      m_interaction(new ChartInteraction(this, m_view, m_crosshair, m_markers)),
      m_liveBar(new ChartLiveBar), m_frameTimer(new QTimer(this))
{
    m_chart->legend()->setAlignment(Qt::AlignTop);
    m_timeAxis->setFormat(QStringLiteral("HH:mm:ss"));
    m_valueAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_valueAxis->setMin(0);
    m_chart->addAxis(m_timeAxis, Qt::AlignBottom);
    m_chart->addAxis(m_valueAxis, Qt::AlignLeft);
    m_view->setRenderHint(QPainter::Antialiasing);
    if (useOpenGl())
        m_crosshair->setLabelWindow(m_view);

    connect(m_liveBar, &ChartLiveBar::pauseToggled, this, &TimeSeriesChart::setPaused);
    connect(m_liveBar, &ChartLiveBar::liveClicked, this, &TimeSeriesChart::followLive);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_liveBar);
    layout->addWidget(m_view, 1);

    m_frameTimer->setObjectName(QStringLiteral("frameTimer"));
    m_frameTimer->setSingleShot(true);
    m_frameTimer->setInterval(frameMs);
    connect(m_frameTimer, &QTimer::timeout, this, &TimeSeriesChart::drawFrame);
    // A new plot width changes the column count; a new height moves markers
    // and lines.
    connect(m_chart, &QChart::plotAreaChanged, this, [this](const QRectF &plotArea) {
        m_markers->layout(plotArea, m_drawnStartMs, m_drawnEndMs);
        updateLinesDomain();
        if (static_cast<int>(plotArea.width()) != m_drawnColumns)
            scheduleFrame();
    });
    applyPalette();
    setMode(Mode::Live);
    drawFrame();
}

TimeSeriesChart::~TimeSeriesChart() = default;

bool TimeSeriesChart::drawsWithOpenGl()
{
    return useOpenGl();
}

void TimeSeriesChart::addSeries(const QString &name, const QColor &color)
{
    auto *line = new QLineSeries;
    line->setName(name);
    // On the raster path the series stays empty (ChartLinesItem draws it);
    // it gives the legend entry and the pen.
    line->setUseOpenGL(useOpenGl());
    m_chart->addSeries(line);
    line->attachAxis(m_timeAxis);
    line->attachAxis(m_valueAxis);
    const QPen pen(m_palette.seriesColor(color), 2.0);
    line->setPen(pen);
    Series added;
    added.name = name;
    added.color = color;
    added.line = line;
    if (m_lines)
        added.index = m_lines->addLine(pen);
    m_series.append(added);
    const Series &series = m_series.back();
    styleLegendMarker(series);
    for (QLegendMarker *marker : m_chart->legend()->markers(line))
        connect(marker, &QLegendMarker::clicked, this,
                [this, name] { setSeriesVisible(name, !isSeriesVisible(name)); });
}

void TimeSeriesChart::setUnit(const QString &unit)
{
    m_unit = unit;
    m_valueAxis->setTitleText(unit);
}

void TimeSeriesChart::setWindowMs(qint64 windowMs)
{
    m_windowMs = std::max<qint64>(windowMs, 1000);
    setMode(m_mode); // the status line names the window
    scheduleFrame();
}

QList<QPointF> TimeSeriesChart::decimate(const QList<QPointF> &points, int columns)
{
    if (points.isEmpty())
        return points;
    return ChartDecimator::decimate(points.constData(), points.constData() + points.size(),
                                    points.front().x(), points.back().x(), columns);
}

void TimeSeriesChart::setPoints(const QString &name, const QList<QPointF> &points)
{
    Series *series = find(name);
    if (!series)
        return;
    series->points = points;
    series->dirty = true;
    if (!points.isEmpty()) {
        const auto newest = static_cast<qint64>(points.back().x());
        const auto oldest = static_cast<qint64>(points.front().x());
        m_newestMs = std::max(m_newestMs, newest);
        m_oldestMs = m_oldestMs ? std::min(m_oldestMs, oldest) : oldest;
    }
    scheduleFrame();
}

qsizetype TimeSeriesChart::pointCount(const QString &name) const
{
    const Series *series = find(name);
    return series ? series->drawn.size() : 0;
}

QList<QPointF> TimeSeriesChart::drawnPoints(const QString &name) const
{
    const Series *series = find(name);
    return series ? series->drawn : QList<QPointF>();
}

int TimeSeriesChart::replaceCount(const QString &name) const
{
    const Series *series = find(name);
    return series ? series->replaces : 0;
}

void TimeSeriesChart::flush()
{
    drawFrame();
}

int TimeSeriesChart::plotWidthPx() const
{
    return std::max(1, static_cast<int>(m_chart->plotArea().width()));
}

qint64 TimeSeriesChart::visibleEndMs() const
{
    if (m_mode != Mode::Live)
        return m_viewEndMs;
    return m_newestMs ? m_newestMs : QDateTime::currentMSecsSinceEpoch();
}

qint64 TimeSeriesChart::visibleStartMs() const
{
    if (m_mode != Mode::Live)
        return m_viewStartMs;
    const qint64 end = visibleEndMs();
    // Until the data fills the window, show the data (at least a minute)
    // rather than a plot that is empty but for its right edge.
    const qint64 span =
        m_oldestMs ? std::clamp<qint64>(end - m_oldestMs, minuteMs, m_windowMs) : m_windowMs;
    return end - span;
}

void TimeSeriesChart::setPaused(bool paused)
{
    if (!paused) {
        followLive();
        return;
    }
    if (m_mode == Mode::Live) {
        m_viewStartMs = visibleStartMs();
        m_viewEndMs = visibleEndMs();
    }
    setMode(Mode::Paused);
}

void TimeSeriesChart::followLive()
{
    setMode(Mode::Live);
    scheduleFrame();
}

void TimeSeriesChart::zoomAround(qint64 anchorMs, double factor)
{
    const qint64 start = visibleStartMs();
    const qint64 end = visibleEndMs();
    const double span =
        std::clamp(double(end - start) * factor, 5000.0, 31.0 * static_cast<double>(dayMs));
    const double fraction = end > start ? double(anchorMs - start) / double(end - start) : 1.0;
    m_viewStartMs = anchorMs - std::llround(fraction * span);
    m_viewEndMs = m_viewStartMs + std::llround(span);
    if (m_mode == Mode::Live)
        setMode(Mode::Browsing);
    scheduleFrame();
}

void TimeSeriesChart::panBy(qint64 deltaMs)
{
    if (deltaMs == 0)
        return;
    const qint64 start = visibleStartMs();
    const qint64 end = visibleEndMs();
    m_viewStartMs = start + deltaMs;
    m_viewEndMs = end + deltaMs;
    if (m_mode == Mode::Live)
        setMode(Mode::Browsing);
    scheduleFrame();
}

void TimeSeriesChart::setSeriesVisible(const QString &name, bool visible)
{
    Series *series = find(name);
    if (!series || series->line->isVisible() == visible)
        return;
    series->line->setVisible(visible);
    if (m_lines)
        m_lines->setLineVisible(series->index, visible);
    styleLegendMarker(*series);
    scheduleFrame();
}

bool TimeSeriesChart::isSeriesVisible(const QString &name) const
{
    const Series *series = find(name);
    return series && series->line->isVisible();
}

void TimeSeriesChart::setMarkers(const QVector<ChartMarker> &markers)
{
    m_markers->setMarkers(markers);
    m_markers->layout(m_chart->plotArea(), m_drawnStartMs, m_drawnEndMs);
}

qsizetype TimeSeriesChart::markerCount() const
{
    return m_markers->markers().size();
}

QStringList TimeSeriesChart::visibleMarkerLabels() const
{
    return m_markers->visibleLabels();
}

void TimeSeriesChart::setSourceTooltip(const QString &text)
{
    m_sourceTooltip = text;
    m_liveBar->setStatusToolTip(text);
}

QString TimeSeriesChart::crosshairText() const
{
    return m_crosshair->text();
}

TimeSeriesChart::Series *TimeSeriesChart::find(const QString &name)
{
    for (Series &series : m_series)
        if (series.name == name)
            return &series;
    return nullptr;
}

const TimeSeriesChart::Series *TimeSeriesChart::find(const QString &name) const
{
    return const_cast<TimeSeriesChart *>(this)->find(name);
}

void TimeSeriesChart::scheduleFrame()
{
    if (!m_frameTimer->isActive())
        m_frameTimer->start();
}

void TimeSeriesChart::drawFrame()
{
    m_frameTimer->stop();
    const qint64 start = visibleStartMs();
    const qint64 end = visibleEndMs();
    const int columns = plotWidthPx();
    const bool moved = start != m_drawnStartMs || end != m_drawnEndMs || columns != m_drawnColumns;
    m_drawnStartMs = start;
    m_drawnEndMs = end;
    m_drawnColumns = columns;
    updateTimeAxis(start, end);
    for (Series &series : m_series) {
        if (!series.line->isVisible()) {
            // Drawn when shown again; hidden series cost nothing per frame.
            series.dirty = series.dirty || moved;
            continue;
        }
        if (series.dirty || moved)
            drawSeries(series, start, end, columns);
    }
    updateValueAxis();
    updateLinesDomain();
    m_markers->layout(m_chart->plotArea(), start, end);
    m_interaction->refresh();
}

void TimeSeriesChart::drawSeries(Series &series, qint64 startMs, qint64 endMs, int columns)
{
    series.dirty = false;
    const QList<QPointF> &points = series.points;
    const auto before = [](const QPointF &point, double x) { return point.x() < x; };
    const auto after = [](double x, const QPointF &point) { return x < point.x(); };
    auto first = std::lower_bound(points.cbegin(), points.cend(), double(startMs), before);
    auto last = std::upper_bound(first, points.cend(), double(endMs), after);
    // One point beyond each edge, so the line runs to the plot's borders.
    if (first != points.cbegin())
        --first;
    if (last != points.cend())
        ++last;
    const QPointF *data = points.constData();
    series.drawn =
        ChartDecimator::decimate(data + (first - points.cbegin()), data + (last - points.cbegin()),
                                 double(startMs), double(endMs), columns);
    double maxValue = 0;
    for (const QPointF &point : std::as_const(series.drawn))
        if (std::isfinite(point.y()))
            maxValue = std::max(maxValue, point.y());
    series.drawnMax = maxValue;
    ++series.replaces;
    if (m_lines)
        m_lines->setPoints(series.index, series.drawn);
    else
        series.line->replace(series.drawn);
}

void TimeSeriesChart::updateLinesDomain()
{
    if (m_lines)
        m_lines->setDomain(m_chart->plotArea(), double(m_drawnStartMs), double(m_drawnEndMs),
                           m_valueAxis->min(), m_valueAxis->max());
}

void TimeSeriesChart::updateTimeAxis(qint64 startMs, qint64 endMs)
{
    const qint64 span = endMs - startMs;
    m_timeAxis->setFormat(span <= 2 * 60 * minuteMs ? QStringLiteral("HH:mm:ss")
                          : span <= 2 * dayMs       ? QStringLiteral("HH:mm")
                                                    : QStringLiteral("MM-dd HH:mm"));
    m_timeAxis->setTickCount(std::clamp(plotWidthPx() / 130 + 1, 3, 10));
    m_timeAxis->setRange(QDateTime::fromMSecsSinceEpoch(startMs),
                         QDateTime::fromMSecsSinceEpoch(endMs));
}

void TimeSeriesChart::updateValueAxis()
{
    double maxValue = 0;
    for (const Series &series : std::as_const(m_series))
        if (series.line->isVisible())
            maxValue = std::max(maxValue, series.drawnMax);
    // Four intervals of a "nice" size (1, 2, 2.5 or 5 × 10^n), so the labels
    // are round numbers and the axis does not twitch on every sample.
    const double interval = std::max(4.0, maxValue * 1.1) / 4;
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

void TimeSeriesChart::setRangeText(const QString &text)
{
    m_liveBar->setRangeText(text);
    m_liveBar->showMode(m_mode, m_windowMs);
}

void TimeSeriesChart::setDataClockMs(qint64 ms)
{
    if (ms <= m_newestMs)
        return;
    m_newestMs = ms;
    scheduleFrame();
}

QString TimeSeriesChart::statusText() const
{
    return m_liveBar->statusText();
}

void TimeSeriesChart::setMode(Mode mode)
{
    m_mode = mode;
    m_liveBar->showMode(mode, m_windowMs);
}

void TimeSeriesChart::applyPalette()
{
    m_palette = ChartPalette::from(palette());
    m_chart->setTheme(m_palette.dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    // The theme resets colours, fonts and margins; ours go on top.
    m_chart->setBackgroundBrush(m_palette.background);
    m_chart->setBackgroundRoundness(0);
    m_chart->setMargins(QMargins(4, 2, 8, 4));
    m_view->setBackgroundBrush(m_palette.background);
    m_timeAxis->setGridLineColor(m_palette.grid);
    m_valueAxis->setGridLineColor(m_palette.grid);
    for (const Series &series : std::as_const(m_series)) {
        const QPen pen(m_palette.seriesColor(series.color), 2.0);
        series.line->setPen(pen);
        if (m_lines)
            m_lines->setPen(series.index, pen);
        styleLegendMarker(series);
    }
    m_crosshair->setColors(m_palette.crosshair, m_palette.text, m_palette.labelBackground,
                           m_palette.labelBorder);
    m_crosshair->setFont(font());
    m_markers->setColors(m_palette.marker, m_palette.labelBackground);
    m_markers->setFont(font());
    m_markers->layout(m_chart->plotArea(), m_drawnStartMs, m_drawnEndMs);
    QFont legendFont = font();
    if (m_compactLegend)
        legendFont.setPointSizeF(legendFont.pointSizeF() * 0.78);
    m_chart->legend()->setFont(legendFont);
}

void TimeSeriesChart::setCompactLegend(bool compact)
{
    m_compactLegend = compact;
    applyPalette();
}

void TimeSeriesChart::styleLegendMarker(const Series &series)
{
    const bool visible = series.line->isVisible();
    QColor label = m_palette.text;
    QColor swatch = m_palette.seriesColor(series.color);
    if (!visible) {
        label.setAlphaF(0.4);
        swatch.setAlphaF(0.25);
    }
    for (QLegendMarker *marker : m_chart->legend()->markers(series.line)) {
        // Qt hides a hidden series' legend entry; it must stay to be clicked again.
        marker->setVisible(true);
        marker->setLabelBrush(label);
        marker->setBrush(swatch);
        marker->setPen(QPen(swatch));
    }
}

void TimeSeriesChart::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        applyPalette();
    QWidget::changeEvent(event);
}
