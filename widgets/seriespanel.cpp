#include "seriespanel.h"

#include "hotwindow.h"
#include "seriessources.h"
#include "timeserieschart.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHash>
#include <QLabel>
#include <QStackedLayout>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>

SeriesPanel::SeriesPanel(const QString &title, opsdeck::history::HotWindow *window,
                         const SeriesSources *sources, QWidget *parent)
    : QWidget(parent), m_window(window), m_sources(sources), m_title(new QLabel(title)),
      m_latest(new QLabel), m_placeholder(new QLabel), m_header(new QHBoxLayout),
      m_stack(new QStackedLayout)
{
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_latest->setTextFormat(Qt::PlainText);
    m_latest->setWordWrap(true);
    m_placeholder->setTextFormat(Qt::PlainText);
    m_placeholder->setWordWrap(true);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setForegroundRole(QPalette::PlaceholderText);
    m_placeholder->setFrameShape(QFrame::StyledPanel);
    // Opaque over the chart: the chart stays laid out underneath (StackAll),
    // so its plot has its size the moment data arrives.
    m_placeholder->setAutoFillBackground(true);
    m_stack->setStackingMode(QStackedLayout::StackAll);
    m_emptyText = QStringLiteral("no samples in the last 5 min");

    m_header->addWidget(m_title);
    m_header->addStretch();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addLayout(m_header);
    layout->addWidget(m_latest);
    layout->addLayout(m_stack, 1);
    m_stack->addWidget(m_placeholder);
    rebuildChart();

    auto *frameTimer = new QTimer(this);
    connect(frameTimer, &QTimer::timeout, this, &SeriesPanel::tick);
    frameTimer->start(250);
}

SeriesPanel::~SeriesPanel() = default;

void SeriesPanel::setSeries(const QVector<PanelSeries> &series)
{
    bool sameLines = series.size() == m_series.size();
    for (qsizetype i = 0; sameLines && i < series.size(); ++i)
        sameLines = series[i].label == m_series[i].label && series[i].color == m_series[i].color;
    m_series = series;
    if (!sameLines)
        rebuildChart();
    m_dirty = true;
}

void SeriesPanel::rebuildChart()
{
    // TimeSeriesChart has no removeSeries(); a new chart is as cheap and
    // starts with a clean view and y range.
    if (m_chart) {
        m_stack->removeWidget(m_chart);
        m_chart->deleteLater();
    }
    m_chart = new TimeSeriesChart;
    m_chart->setMinimumHeight(240);
    for (const PanelSeries &s : std::as_const(m_series))
        m_chart->addSeries(s.label, s.color);
    m_chart->setUnit(m_unit);
    m_chart->setWindowMs(m_windowMs);
    m_chart->setMarkers(m_markers);
    m_stack->insertWidget(0, m_chart);
    m_placeholder->raise();
}

void SeriesPanel::setUnit(const QString &unit)
{
    m_unit = unit;
    m_chart->setUnit(unit);
}

void SeriesPanel::setWindowMs(qint64 windowMs)
{
    m_windowMs = windowMs;
    m_chart->setWindowMs(windowMs);
}

void SeriesPanel::setMarkers(const QVector<ChartMarker> &markers)
{
    m_markers = markers;
    m_chart->setMarkers(markers);
}

void SeriesPanel::setEmptyText(const QString &text)
{
    m_emptyText = text;
    refreshText();
}

QString SeriesPanel::title() const
{
    return m_title->text();
}

void SeriesPanel::setTitle(const QString &title)
{
    m_title->setText(title);
}

QString SeriesPanel::latestText() const
{
    return m_latest->text();
}

bool SeriesPanel::isShowingPlaceholder() const
{
    return !m_placeholder->isHidden();
}

QString SeriesPanel::placeholderText() const
{
    return m_placeholder->text();
}

void SeriesPanel::tick()
{
    // A panel on a tab that is not shown draws when it is shown again.
    if (!isVisible())
        return;
    ++m_ticks;
    // Asked here, 4 times a second, rather than told on every sample: the
    // hot window gets hundreds of samples a second for all panels.
    if (!m_newData)
        m_newData = gotSamples();
    // The samples of many services arrive spread over each second: drawing
    // them once a second, rather than at every tick that saw one, is all 1 s
    // data needs and a quarter of the drawing. A change of series is drawn at
    // the next tick.
    constexpr qint64 dataRedrawMs = 900;
    const bool dataDue =
        m_newData && (!m_lastRedraw.isValid() || m_lastRedraw.elapsed() >= dataRedrawMs);
    if (m_dirty || dataDue)
        redraw();
    else if (m_ticks % 4 == 0) {
        // Once a second the axis follows the other series' clock, drawn or not.
        m_chart->setDataClockMs(m_window->newestMs());
        chooseSeries();
        if (m_dirty)
            redraw();
        else
            refreshText();
    }
}

void SeriesPanel::redraw()
{
    chooseSeries();
    m_dirty = false;
    m_newData = false;
    m_lastRedraw.start();
    m_drawnLatestMs.clear();
    for (const PanelSeries &s : std::as_const(m_series)) {
        const QVector<opsdeck::history::Sample> samples = m_window->points(s.service, s.key);
        m_drawnLatestMs.append(samples.isEmpty() ? -1 : samples.back().timeMs);
        QList<QPointF> points;
        points.reserve(samples.size());
        for (const opsdeck::history::Sample &sample : samples)
            points.append({double(sample.timeMs), sample.value * s.scale});
        m_chart->setPoints(s.label, points);
    }
    refreshText();
}

bool SeriesPanel::gotSamples() const
{
    if (m_drawnLatestMs.size() != m_series.size())
        return !m_series.isEmpty();
    for (qsizetype i = 0; i < m_series.size(); ++i) {
        const auto last = latest(m_series[i]);
        if (last && last->timeMs != m_drawnLatestMs[i])
            return true;
    }
    return false;
}

void SeriesPanel::refreshText()
{
    const qint64 since = nowMs() - m_windowMs;
    bool anyInWindow = false;
    for (const PanelSeries &s : std::as_const(m_series)) {
        const auto last = latest(s);
        anyInWindow = anyInWindow || (last && last->timeMs >= since);
    }
    m_placeholder->setText(m_emptyText);
    m_placeholder->setVisible(!anyInWindow);
    if (!anyInWindow)
        m_placeholder->raise();
    m_latest->setText(latestLine());

    QStringList lines{m_title->text()};
    for (const PanelSeries &s : std::as_const(m_series))
        lines << sourceLine(s);
    const QString tip = lines.join(QLatin1Char('\n'));
    setToolTip(tip);
    m_chart->setSourceTooltip(tip);
}

std::optional<opsdeck::history::Sample> SeriesPanel::latest(const QString &service,
                                                            const QString &key) const
{
    return m_window->latest(service, key);
}

std::optional<opsdeck::history::Sample> SeriesPanel::latest(const PanelSeries &series) const
{
    return latest(series.service, series.key);
}

QString SeriesPanel::latestLine() const
{
    // Grouped by service, the unit once per group:
    // "prefill-0: bootstrap 0 · inflight 1 requests   decode-0: prealloc 0 …".
    QStringList services;
    QHash<QString, QStringList> values;
    QHash<QString, bool> measured; // a group of "—" only gets no unit
    const qint64 now = nowMs();
    for (const PanelSeries &s : std::as_const(m_series)) {
        const auto last = latest(s);
        if (!last)
            continue;
        const QString suffix = QStringLiteral(" · ") + s.service;
        const QString what = s.label.endsWith(suffix) ? s.label.chopped(suffix.size()) : s.label;
        // A stale value is not today's reading: "—" and its age, never the old number.
        const bool stale = now - last->timeMs > staleAfterMs;
        QString part = QStringLiteral("%1 %2").arg(
            what, stale ? QStringLiteral("—") : formatValue(last->value * s.scale));
        if (stale)
            part += QStringLiteral(" (no reading for %1)").arg(formatAge(now - last->timeMs));
        if (!services.contains(s.service))
            services << s.service;
        values[s.service] << part;
        measured[s.service] = measured.value(s.service) || !stale;
    }
    QStringList groups;
    for (const QString &service : std::as_const(services))
        groups << QStringLiteral("%1: %2%3")
                      .arg(service, values[service].join(QStringLiteral(" · ")),
                           measured.value(service) ? u' ' + m_unit : QString());
    return groups.isEmpty() ? QStringLiteral("no sample yet") : groups.join(QStringLiteral("    "));
}

QString SeriesPanel::sourceLine(const PanelSeries &series) const
{
    const SeriesSources::Entry *entry = m_sources->find(series.service, series.key);
    if (!entry)
        return QStringLiteral("%1: %2 of %3 (not read yet)")
            .arg(series.label, series.key, series.service);
    QString line =
        QStringLiteral("%1: %2 of %3").arg(series.label, entry->value.source, series.service);
    if (!entry->value.refresh.isEmpty())
        line += QStringLiteral(", refreshed ") + entry->value.refresh;
    if (!entry->value.bound.isEmpty())
        line += entry->value.bound == u"upper"
                    ? QStringLiteral(" (in the first bucket: at most this, not a measured value; ")
                    : QStringLiteral(" (in the last bucket: above this, not a measured value; ");
    if (!entry->value.edges.isEmpty())
        line += (entry->value.bound.isEmpty() ? QStringLiteral(" (") : QString()) +
                entry->value.edges + u')';
    return line;
}

QString SeriesPanel::formatValue(double value)
{
    if (!std::isfinite(value))
        return QString::number(value);
    const double magnitude = std::abs(value);
    // Request and worker counts are whole numbers: no ".00" after them.
    // (within rounding noise: a p99 of 0.099 s shown in ms is 99, not 99.0).
    const bool whole = std::abs(value - std::round(value)) < 1e-9 * std::max(1.0, magnitude);
    const int decimals = whole || magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
    return QString::number(value, 'f', decimals);
}

QString SeriesPanel::formatAge(qint64 ms)
{
    const qint64 s = std::max<qint64>(0, ms / 1000);
    if (s < 120)
        return QStringLiteral("%1 s").arg(s);
    if (s < 2 * 3600)
        return QStringLiteral("%1 min").arg(s / 60);
    return QStringLiteral("%1 h").arg(s / 3600);
}

qint64 SeriesPanel::nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}
