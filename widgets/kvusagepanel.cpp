#include "kvusagepanel.h"

using opsdeck::inventory::Role;

KvUsagePanel::KvUsagePanel(opsdeck::history::HotWindow *window, const SeriesSources *sources,
                           QWidget *parent)
    : SeriesPanel(QStringLiteral("KV cache usage"), window, sources, parent)
{
    setUnit(QStringLiteral("%"));
    setEmptyText(QStringLiteral("no KV cache usage gauge read in the last 5 min"));
}

void KvUsagePanel::setServices(const QVector<opsdeck::inventory::Service> &services)
{
    QVector<PanelSeries> series;
    for (const auto &s : services)
        if (s.role == Role::Prefill || s.role == Role::Decode || s.role == Role::Engine)
            series.append(
                {s.name, QStringLiteral("kv_usage"), s.name, panelColor(int(series.size())), 100});
    setSeries(series);
}

QString KvUsagePanel::latestLine() const
{
    QStringList parts;
    for (const PanelSeries &s : series()) {
        const auto last = latest(s);
        if (!last)
            continue;
        QString part = QStringLiteral("%1 %2 %").arg(s.label, formatValue(last->value * 100));
        // Ratios are averaged over ranks; one full rank stalls its requests.
        const auto fullest = latest(s.service, QStringLiteral("kv_usage_max"));
        if (fullest && fullest->timeMs == last->timeMs && fullest->value > last->value)
            part += QStringLiteral(" (fullest rank %1 %)").arg(formatValue(fullest->value * 100));
        if (nowMs() - last->timeMs > staleAfterMs)
            part += QStringLiteral(", %1 ago").arg(formatAge(nowMs() - last->timeMs));
        parts << part;
    }
    return parts.isEmpty() ? QStringLiteral("no sample yet") : parts.join(QStringLiteral("  ·  "));
}
