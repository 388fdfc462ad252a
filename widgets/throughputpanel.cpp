#include "throughputpanel.h"

using opsdeck::inventory::Role;

ThroughputPanel::ThroughputPanel(opsdeck::history::HotWindow *window, const SeriesSources *sources,
                                 QWidget *parent)
    : SeriesPanel(QStringLiteral("Throughput"), window, sources, parent)
{
    setUnit(QStringLiteral("tokens/s"));
    setEmptyText(QStringLiteral("no token counters read in the last 5 min "
                                "(tokens/s needs two scrapes of a prefill or decode service)"));
}

void ThroughputPanel::setServices(const QVector<opsdeck::inventory::Service> &services)
{
    QVector<PanelSeries> series;
    const QString prompt = QStringLiteral("prompt_tokens_per_s");
    const QString generation = QStringLiteral("generation_tokens_per_s");
    for (const auto &s : services) {
        if (s.role == Role::Prefill || s.role == Role::Engine)
            series.append({s.name, prompt, QStringLiteral("prompt · %1").arg(s.name),
                           panelColor(int(series.size())), 1});
        if (s.role == Role::Decode || s.role == Role::Engine)
            series.append({s.name, generation, QStringLiteral("generation · %1").arg(s.name),
                           panelColor(int(series.size())), 1});
    }
    setSeries(series);
}
