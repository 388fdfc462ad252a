#pragma once

#include "chartmarker.h"
#include "historysample.h"
#include "panelseries.h"

#include <QElapsedTimer>
#include <QVector>
#include <QWidget>
#include <optional>

class QHBoxLayout;
class QLabel;
class QStackedLayout;
class SeriesSources;
class TimeSeriesChart;

namespace opsdeck::history {
class HotWindow;
struct SeriesKey;
} // namespace opsdeck::history

/// A titled TimeSeriesChart of recorded series read from the HotWindow: the
/// title, a line with the latest values, and the chart; a placeholder text
/// replaces the chart while no series has a point in the chart's window.
/// The panel's tooltip (and the chart's source tooltip) names, per series,
/// the metric family and the service its numbers come from (SeriesSources).
///
/// Redraws at most 4 times a second, and only when one of its series has a
/// newer sample in the HotWindow than the one drawn (looked up at each tick); the latest-value line
/// and placeholder are refreshed once a second (ages move on without new samples). Thread: GUI
/// thread. The hot window and sources outlive the panel.
class SeriesPanel : public QWidget
{
    Q_OBJECT
public:
    SeriesPanel(const QString &title, opsdeck::history::HotWindow *window,
                const SeriesSources *sources, QWidget *parent = nullptr);
    ~SeriesPanel() override;

    /// The series drawn. A new list of legend labels builds a new chart
    /// (chart() changes); the same labels only rebind what they read.
    void setSeries(const QVector<PanelSeries> &series);
    const QVector<PanelSeries> &series() const { return m_series; }
    /// Unit of the shown values (after PanelSeries::scale), e.g. "tokens/s".
    void setUnit(const QString &unit);
    QString unit() const { return m_unit; }
    /// Visible live span, ms; also the span the placeholder looks at.
    void setWindowMs(qint64 windowMs);
    qint64 windowMs() const { return m_windowMs; }
    void setMarkers(const QVector<ChartMarker> &markers);
    /// Shown instead of the chart while there is nothing to draw, e.g.
    /// "no TTFT observations in the last minute".
    void setEmptyText(const QString &text);

    TimeSeriesChart *chart() const { return m_chart; }
    QString title() const;
    void setTitle(const QString &title);
    QString latestText() const;
    bool isShowingPlaceholder() const;
    QString placeholderText() const;
    /// Reads the hot window and hands the points to the chart now.
    void redraw();

protected:
    /// The newest sample of (service, key), nullopt when it has none.
    std::optional<opsdeck::history::Sample> latest(const QString &service,
                                                   const QString &key) const;
    std::optional<opsdeck::history::Sample> latest(const PanelSeries &series) const;
    /// The latest-value line; default: "label value unit" of each series.
    virtual QString latestLine() const;
    /// One tooltip line for a series: "label: family of service, refresh".
    virtual QString sourceLine(const PanelSeries &series) const;
    /// Called before each redraw and once a second: panels that choose
    /// their series from the data (live or gauge, a rank) call setSeries() here.
    virtual void chooseSeries() {}
    /// Row beside the title, for selectors.
    QHBoxLayout *header() const { return m_header; }
    opsdeck::history::HotWindow *hotWindow() const { return m_window; }
    const SeriesSources *sources() const { return m_sources; }
    /// 0.42, 4.2, 42, 420: enough digits to read, no more.
    static QString formatValue(double value);
    /// "8 s", "3 min", "2 h".
    static QString formatAge(qint64 ms);
    static qint64 nowMs();
    /// Samples older than this are called stale in the latest line, ms.
    static constexpr qint64 staleAfterMs = 10'000;

private:
    void rebuildChart();
    void refreshText();
    void tick();
    /// Whether a series has a sample newer than the one last drawn.
    bool gotSamples() const;

    opsdeck::history::HotWindow *m_window;
    const SeriesSources *m_sources;
    QVector<PanelSeries> m_series;
    /// Newest sample time drawn per series of m_series (-1: none), ms.
    QVector<qint64> m_drawnLatestMs;
    TimeSeriesChart *m_chart = nullptr;
    QLabel *m_title;
    QLabel *m_latest;
    QLabel *m_placeholder;
    QHBoxLayout *m_header;
    QStackedLayout *m_stack;
    QVector<ChartMarker> m_markers;
    QString m_unit;
    QString m_emptyText;
    qint64 m_windowMs = 5 * 60 * 1000;
    int m_ticks = 0;
    bool m_dirty = true;    ///< the series changed: draw at the next tick
    bool m_newData = false; ///< a shown series got samples: draw when a redraw is due
    QElapsedTimer m_lastRedraw;
};
