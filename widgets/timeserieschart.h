#pragma once

#include "chartlivebar.h"
#include "chartmarker.h"
#include "chartpalette.h"

#include <QColor>
#include <QList>
#include <QPointF>
#include <QStringList>
#include <QVector>
#include <QWidget>

class ChartCrosshair;
class ChartInteraction;
class ChartLinesItem;
class ChartMarkerOverlay;
class QChart;
class QChartView;
class QDateTimeAxis;
class QLineSeries;
class QTimer;
class QValueAxis;

/// The one chart widget every panel uses: named line series over a time
/// axis (x in ms since the Unix epoch, shown in local time), a y axis that
/// starts at 0 and grows with the visible series, markers, a hover
/// crosshair, zoom, pan and pause. Thread: GUI thread only.
///
/// Drawing: setPoints() only stores the points (implicitly shared, no copy)
/// and marks the series dirty; at the next frame (≤ 16 ms later, one timer
/// per chart) each dirty series is cut to the visible time range, reduced to
/// each pixel column's first, min, max and last value over the plot area's
/// width in pixels, and handed to its line once. So any number of
/// setPoints() calls in one frame cost one replace per series, and peaks
/// survive decimation.
///
/// Two paths for the lines, chosen once per process (drawsWithOpenGl()):
/// - OpenGL (QXYSeries::setUseOpenGL, fed with QLineSeries::replace()) where
///   a hardware OpenGL context can be made on a windowing platform (xcb,
///   wayland, windows, cocoa, eglfs). Qt Charts draws the lines on a
///   QOpenGLWidget over the plot. That widget covers every scene item, so
///   the crosshair label becomes a tool window above it, and it is made
///   transparent for the mouse, else it takes presses and hovers on a line.
///   bench_chart (8 × 86,400 points, 1200 px, 2 cores): 3.6 ms a frame for
///   decimate + replace, 3 ms of it decimation.
/// - Raster everywhere else: Qt's offscreen platform (the tests), no
///   context, a software renderer such as Mesa's llvmpipe (Xvfb, remote
///   desktops: there the OpenGL path stalled the GUI thread over 1 s and
///   took 170 MB more), or OPSDECK_CHART_OPENGL=0. The lines are drawn by
///   ChartLinesItem, a scene item over the plot, not by Qt Charts' raster
///   line item, which strokes a hit-test outline of the whole line on every
///   replace() and every axis move (about 0.5 µs a point: 25 ms a frame in
///   bench_chart, against about 3.5 ms with ChartLinesItem). The QLineSeries
///   stay, empty, for the legend and the pens.
///   OPSDECK_CHART_OPENGL=1 forces OpenGL on software renderers.
/// Either way, call setPoints() at most once per series per second for
/// history-sized series.
///
/// View: by default the time axis follows live data, showing the window
/// (setWindowMs) that ends at the newest point. Mouse wheel zooms in time
/// around the cursor, drag or shift+wheel pans; either stops following.
/// Double-click on the plot or the "Live" button follows again. The "Pause"
/// button freezes the view while setPoints() keeps accepting data;
/// unpausing jumps to now. Clicking a legend entry hides or shows its series
/// (the y axis rescales to the visible ones).
///
/// Palette: light or dark after the application palette (dark when
/// QPalette::Window is dark), switched on QEvent::PaletteChange; series
/// colours are adjusted to stay readable on both (ChartPalette).
class TimeSeriesChart : public QWidget
{
    Q_OBJECT
public:
    explicit TimeSeriesChart(QWidget *parent = nullptr);
    ~TimeSeriesChart() override;

    // --- Data

    /// Adds a series drawn in `color` (adjusted for contrast on either
    /// palette); `name` is its legend entry and its key in setPoints().
    void addSeries(const QString &name, const QColor &color);
    /// Unit of every series' values, e.g. "requests", "tokens/s", "s";
    /// shown as the y axis title and after each value in the crosshair label.
    void setUnit(const QString &unit);
    QString unit() const { return m_unit; }
    /// Visible span ending at the newest point while following live data,
    /// ms (while less data exists, the span of the data, at least 1 minute).
    void setWindowMs(qint64 windowMs);
    /// Replaces the points of one series (x ascending, ms since epoch; y in
    /// the chart's unit). Unknown names are ignored. Drawn at the next frame.
    void setPoints(const QString &name, const QList<QPointF> &points);
    /// Points currently drawn for `name` (after decimation; 0 before the
    /// first frame and for unknown names).
    qsizetype pointCount(const QString &name) const;
    /// Those points themselves (x ms since epoch, y in the chart's unit).
    QList<QPointF> drawnPoints(const QString &name) const;
    /// Frames that handed `name`'s lines new points: one per frame however
    /// many setPoints() calls it coalesced.
    int replaceCount(const QString &name) const;
    /// Draws what is pending now instead of at the next frame (tests,
    /// benchmarks, screenshots).
    void flush();
    /// Reduces `points` to at most 4 per pixel column over `columns`
    /// columns spanning the points' own x range (first, min, max, last of
    /// each column, in time order). Fewer points are returned as given.
    static QList<QPointF> decimate(const QList<QPointF> &points, int columns);
    /// Width of the plot area in device-independent pixels: the column
    /// count decimation uses.
    int plotWidthPx() const;

    // --- View

    /// Visible time range, ms since epoch.
    qint64 visibleStartMs() const;
    qint64 visibleEndMs() const;
    bool isFollowingLive() const { return m_mode == Mode::Live; }
    bool isPaused() const { return m_mode == Mode::Paused; }
    /// Freezes the view at its current range (data is still accepted), or
    /// jumps back to live data.
    void setPaused(bool paused);
    /// Follows live data again (what double-click and "Live" do).
    void followLive();
    /// The range a chart of history shows, for its subtitle ("last 1 h from
    /// Prometheus at 10:02"); empty: live data ("Live, up to the last 5 min").
    void setRangeText(const QString &text);
    /// The live edge from the data source (HotWindow::newestMs): in live mode
    /// the axis ends at the newest of this and the chart's own points.
    void setDataClockMs(qint64 ms);
    /// The subtitle as shown: the mode, or the range of a chart of history.
    QString statusText() const;
    /// Scales the visible span by `factor` (< 1 zooms in) keeping `anchorMs`
    /// at the same place on screen; stops following. Span kept within
    /// 5 s .. 31 days.
    void zoomAround(qint64 anchorMs, double factor);
    /// Moves the visible range by `deltaMs` (positive: later); stops following.
    void panBy(qint64 deltaMs);
    void setSeriesVisible(const QString &name, bool visible);
    bool isSeriesVisible(const QString &name) const;
    /// True when the chart is drawn with its dark theme.
    bool isDark() const { return m_palette.dark; }
    /// True when lines are drawn through OpenGL (see "Two paths" above);
    /// the same for every chart of the process. Needs a QGuiApplication.
    static bool drawsWithOpenGl();

    // --- Markers and hover

    /// Markers drawn as labelled vertical lines (those inside the visible range).
    void setMarkers(const QVector<ChartMarker> &markers);
    qsizetype markerCount() const;
    /// Marker labels currently drawn, in time order ("kind: text", maybe elided).
    QStringList visibleMarkerLabels() const;
    /// What the numbers are and where they come from (metric, service,
    /// endpoint); shown as a tooltip on hover over the chart outside the
    /// plot (axes, legend, status line). Inside the plot the crosshair
    /// label gives the values instead.
    void setSourceTooltip(const QString &text);
    /// Legend text at 78 % of the widget's font, for charts set side by side
    /// in a row (the probe lab's paths), so that every entry reads whole.
    void setCompactLegend(bool compact);
    QString sourceTooltip() const { return m_sourceTooltip; }
    /// The crosshair label (time, then "name: value unit" per visible
    /// series) while the pointer is over the plot; empty otherwise.
    QString crosshairText() const;

protected:
    void changeEvent(QEvent *event) override;

private:
    friend class ChartInteraction; // reads the series for the crosshair label

    using Mode = ChartLiveBar::Mode;
    struct Series
    {
        QString name;
        QColor color;                ///< as requested; drawn through ChartPalette::seriesColor
        QLineSeries *line = nullptr; ///< legend entry and pen; holds the points on the OpenGL path
        int index = -1;              ///< its line in m_lines (raster path)
        QList<QPointF> points;
        QList<QPointF> drawn; ///< after decimation, as handed over at the last frame
        double drawnMax = 0;  ///< largest y drawn at the last frame
        int replaces = 0;     ///< frames that handed this series new points
        bool dirty = false;
    };

    Series *find(const QString &name);
    const Series *find(const QString &name) const;
    void scheduleFrame();
    void drawFrame();
    void drawSeries(Series &series, qint64 startMs, qint64 endMs, int columns);
    void updateValueAxis();
    void updateLinesDomain();
    void updateTimeAxis(qint64 startMs, qint64 endMs);
    void setMode(Mode mode);
    void applyPalette();
    void styleLegendMarker(const Series &series);

    QChart *m_chart;
    QChartView *m_view;
    QDateTimeAxis *m_timeAxis;
    QValueAxis *m_valueAxis;
    ChartLinesItem *m_lines; ///< the raster path's lines; nullptr on the OpenGL path
    ChartCrosshair *m_crosshair;
    ChartMarkerOverlay *m_markers;
    ChartInteraction *m_interaction;
    ChartLiveBar *m_liveBar;
    QTimer *m_frameTimer;
    QList<Series> m_series;
    ChartPalette m_palette;
    QString m_unit;
    bool m_compactLegend = false;
    QString m_sourceTooltip;
    Mode m_mode = Mode::Live;
    qint64 m_windowMs = 5 * 60 * 1000;
    qint64 m_newestMs = 0;
    qint64 m_oldestMs = 0;    ///< first point ever given; 0 before any
    qint64 m_viewStartMs = 0; ///< the frozen range while not following
    qint64 m_viewEndMs = 0;
    qint64 m_drawnStartMs = 0; ///< the range and width of the last frame
    qint64 m_drawnEndMs = 0;
    int m_drawnColumns = 0;
};
