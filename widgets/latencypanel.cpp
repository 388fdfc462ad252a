#include "latencypanel.h"

#include "seriessources.h"

#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>

LatencyPanel::LatencyPanel(opsdeck::history::HotWindow *window, const SeriesSources *sources,
                           QWidget *parent)
    : SeriesPanel(QStringLiteral("Latency"), window, sources, parent), m_selector(new QComboBox)
{
    m_selector->addItem(QStringLiteral("TTFT (time to first token)"), int(Latency::Ttft));
    m_selector->addItem(QStringLiteral("ITL (inter-token latency)"), int(Latency::Itl));
    m_selector->addItem(QStringLiteral("E2E (end-to-end request)"), int(Latency::E2e));
    m_selector->setToolTip(QStringLiteral("Which latency the chart shows, p50 and p99"));
    header()->addWidget(m_selector);
    connect(m_selector, &QComboBox::currentIndexChanged, this,
            [this](int index) { setLatency(Latency(m_selector->itemData(index).toInt())); });
    setUnit(QStringLiteral("ms"));
    setLatency(Latency::Ttft);
}

void LatencyPanel::setServices(const QVector<opsdeck::inventory::Service> &services)
{
    m_services.clear();
    for (const auto &s : services)
        m_services << s.name;
    chooseSeries();
}

void LatencyPanel::setLatency(Latency latency)
{
    m_latency = latency;
    m_selector->setCurrentIndex(m_selector->findData(int(latency)));
    setEmptyText(QStringLiteral("no %1 observations in the last minute").arg(name()));
    chooseSeries();
}

QString LatencyPanel::prefix() const
{
    switch (m_latency) {
    case Latency::Itl:
        return QStringLiteral("itl");
    case Latency::E2e:
        return QStringLiteral("e2e");
    case Latency::Ttft:
        break;
    }
    return QStringLiteral("ttft");
}

QString LatencyPanel::name() const
{
    return prefix().toUpper();
}

QVector<PanelSeries> LatencyPanel::seriesFor(const QStringList &services) const
{
    QVector<PanelSeries> series;
    for (const QString &service : services)
        for (const QString &q : {QStringLiteral("p50"), QStringLiteral("p99")})
            series.append({service, QStringLiteral("%1_%2_s").arg(prefix(), q),
                           QStringLiteral("%1 · %2").arg(q, service),
                           panelColor(int(series.size())), 1000});
    return series;
}

void LatencyPanel::chooseSeries()
{
    // The router and the engines may all carry latency histograms; only
    // those that observed something get a legend entry.
    QStringList withData;
    for (const QString &service : std::as_const(m_services))
        if (latest(service, prefix() + QStringLiteral("_p50_s")) ||
            latest(service, prefix() + QStringLiteral("_p99_s")))
            withData << service;
    const QVector<PanelSeries> wanted = seriesFor(withData.isEmpty() ? m_services : withData);
    bool same = wanted.size() == series().size();
    for (qsizetype i = 0; same && i < wanted.size(); ++i)
        same = wanted[i].key == series()[i].key && wanted[i].label == series()[i].label;
    if (!same)
        setSeries(wanted);
}

QString LatencyPanel::quantileText(const PanelSeries &series,
                                   const std::optional<opsdeck::history::Sample> &sample) const
{
    if (!sample)
        return QStringLiteral("–");
    const QString ms = formatValue(sample->value * 1000) + QStringLiteral(" ms");
    // In the first or last bucket only one edge is known: say "below" or "above" it.
    const SeriesSources::Entry *entry = sources()->find(series.service, series.key);
    const QString bound = entry ? entry->value.bound : QString();
    if (bound == u"upper")
        return QStringLiteral("< ") + ms;
    if (bound == u"lower")
        return QStringLiteral("> ") + ms;
    return ms;
}

QString LatencyPanel::latestLine() const
{
    QStringList parts;
    const qint64 now = nowMs();
    for (qsizetype i = 0; i + 1 < series().size(); i += 2) {
        const PanelSeries &p50 = series()[i];
        const auto median = latest(p50);
        const auto tail = latest(series()[i + 1]);
        if (!median && !tail)
            continue;
        const qint64 newest = std::max(median ? median->timeMs : 0, tail ? tail->timeMs : 0);
        if (now - newest > staleAfterMs) {
            const QString clock =
                QDateTime::fromMSecsSinceEpoch(newest).toString(QStringLiteral("HH:mm:ss"));
            // "In the last minute" only when it is true of the clock time shown.
            parts << (now - newest > 60'000
                          ? QStringLiteral("%1: no %2 observations in the last minute (last at %3)")
                          : QStringLiteral("%1: no new %2 reading since %3"))
                         .arg(p50.service, name(), clock);
            continue;
        }
        parts << QStringLiteral("%1 %2: p50 %3 · p99 %4")
                     .arg(name(), p50.service, quantileText(p50, median),
                          quantileText(series()[i + 1], tail));
    }
    return parts.isEmpty() ? QStringLiteral("no %1 observations yet").arg(name())
                           : parts.join(QStringLiteral("  ·  "));
}
