#include "probelatencypanel.h"

#include "probelab.h"
#include "timeserieschart.h"

using opsdeck::probes::ProbeLab;

ProbeLatencyPanel::ProbeLatencyPanel(const opsdeck::probes::ProbePath &path,
                                     opsdeck::history::HotWindow *window, QWidget *parent)
    // SeriesSources names metric families; these series are the lab's own.
    : SeriesPanel(path.name, window, nullptr, parent), m_path(path)
{
    const QString service = path.entryService;
    // Fresh in blue, reused in orange; p99 in the darker shade of each.
    setSeries({{service, ProbeLab::seriesKey(path.name, false, 50), QStringLiteral("fresh p50"),
                QColor(0x42, 0x8b, 0xe0)},
               {service, ProbeLab::seriesKey(path.name, false, 99), QStringLiteral("fresh p99"),
                QColor(0x0d, 0x47, 0xa1)},
               {service, ProbeLab::seriesKey(path.name, true, 50), QStringLiteral("reused p50"),
                QColor(0xff, 0x98, 0x00)},
               {service, ProbeLab::seriesKey(path.name, true, 99), QStringLiteral("reused p99"),
                QColor(0xbf, 0x36, 0x0c)}});
    setUnit(QStringLiteral("ms"));
    setWindowMs(5 * 60 * 1000);
    setEmptyText(QStringLiteral("no probes on this path yet: press Start"));
    chart()->setMinimumHeight(200);
}

QString ProbeLatencyPanel::latestLine() const
{
    QStringList parts;
    for (const PanelSeries &s : series()) {
        const auto last = latest(s);
        if (!last)
            continue;
        // A timed-out probe's deadline is how long we waited, not the latency.
        PanelSeries bound = s;
        bound.key = ProbeLab::lowerBoundKey(s.key);
        const auto timedOut = latest(bound);
        parts << QStringLiteral("%1 %2%3").arg(
            s.label, timedOut && timedOut->value > 0 ? QStringLiteral("> ") : QString(),
            formatValue(last->value));
    }
    return parts.isEmpty()
               ? QStringLiteral("no sample yet")
               : parts.join(QStringLiteral(" · ")) + QStringLiteral(" ms (last minute)");
}

QString ProbeLatencyPanel::sourceLine(const PanelSeries &series) const
{
    return QStringLiteral("%1: total time (curl time_total) of %2 probes entering at %3, "
                          "over the last minute; a timed-out probe counts as its deadline, a "
                          "lower bound (\"> 6000\")")
        .arg(series.label,
             series.label.startsWith(QStringLiteral("fresh")) ? QStringLiteral("fresh-connection")
                                                              : QStringLiteral("kept-alive"),
             m_path.entryService);
}
