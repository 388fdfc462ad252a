#include "routerhealthpanel.h"

using opsdeck::inventory::Role;

RouterHealthPanel::RouterHealthPanel(opsdeck::history::HotWindow *window,
                                     const SeriesSources *sources, QWidget *parent)
    : SeriesPanel(QStringLiteral("Router worker health"), window, sources, parent)
{
    setUnit(QStringLiteral("workers"));
    setEmptyText(QStringLiteral("no router worker gauges read in the last 5 min"));
}

void RouterHealthPanel::setServices(const QVector<opsdeck::inventory::Service> &services)
{
    QVector<PanelSeries> series;
    for (const auto &s : services) {
        if (s.role != Role::Router)
            continue;
        // Total first, so healthy is drawn over it where they are equal.
        series.append({s.name, QStringLiteral("workers_total"),
                       QStringLiteral("total · %1").arg(s.name), QColor(0x75, 0x75, 0x75), 1});
        series.append({s.name, QStringLiteral("workers_healthy"),
                       QStringLiteral("healthy · %1").arg(s.name), QColor(0x2e, 0x7d, 0x32), 1});
    }
    setSeries(series);
}

QString RouterHealthPanel::latestLine() const
{
    QStringList parts;
    for (const PanelSeries &s : series()) {
        if (s.key != QStringLiteral("workers_healthy"))
            continue;
        const auto healthy = latest(s);
        const auto total = latest(s.service, QStringLiteral("workers_total"));
        if (!healthy)
            continue;
        QString part =
            total ? QStringLiteral("%1: %2 of %3 workers healthy")
                        .arg(s.service, formatValue(healthy->value), formatValue(total->value))
                  : QStringLiteral("%1: %2 workers healthy")
                        .arg(s.service, formatValue(healthy->value));
        if (total && healthy->value < total->value)
            part += QStringLiteral(" — %1 down").arg(formatValue(total->value - healthy->value));
        if (nowMs() - healthy->timeMs > staleAfterMs)
            part += QStringLiteral(" (%1 ago)").arg(formatAge(nowMs() - healthy->timeMs));
        parts << part;
    }
    return parts.isEmpty() ? QStringLiteral("no sample yet") : parts.join(QStringLiteral("  ·  "));
}
