#include "decodebatchpanel.h"

#include "hotwindow.h"
#include "seriessources.h"
#include "timeserieschart.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QRegularExpression>

using opsdeck::inventory::Role;

namespace {

const QString liveRunning = QStringLiteral("live_running");
const QString liveWaiting = QStringLiteral("live_waiting");

QString rankKey(const char *name, int rank)
{
    return QStringLiteral("%1{dp_rank=\"%2\"}").arg(QLatin1String(name)).arg(rank);
}

// The series key of one gauge ("running" or "waiting"): the selected dp
// rank's, else the live batch's `liveKey` when `live`, else the polled gauge.
QString gaugeKey(const char *gauge, const QString &liveKey, int rank, bool live)
{
    if (rank >= 0)
        return rankKey(gauge, rank);
    if (live)
        return liveKey;
    return QLatin1String(gauge);
}

} // namespace

DecodeBatchPanel::DecodeBatchPanel(opsdeck::history::HotWindow *window,
                                   const SeriesSources *sources, QWidget *parent)
    : SeriesPanel(QStringLiteral("Decode batch"), window, sources, parent),
      m_rankSelector(new QComboBox)
{
    m_rankSelector->addItem(QStringLiteral("all ranks"), -1);
    m_rankSelector->setToolTip(QStringLiteral("Per data-parallel rank: that rank's "
                                              "num_running_reqs / num_queue_reqs gauges"));
    m_rankSelector->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    header()->addWidget(m_rankSelector);
    m_rankSelector->hide(); // until the page has per-rank gauges
    connect(m_rankSelector, &QComboBox::activated, this,
            [this](int index) { selectRank(m_rankSelector->itemData(index).toInt()); });
    setUnit(QStringLiteral("requests"));
    setEmptyText(QStringLiteral("no decode batch sample in the last 5 min "
                                "(neither /v1/loads nor the running/waiting gauges)"));
}

void DecodeBatchPanel::setServices(const QVector<opsdeck::inventory::Service> &services)
{
    QStringList names;
    for (const auto &s : services)
        if (s.role == Role::Decode || s.role == Role::Engine)
            names << s.name;
    setServiceNames(names);
}

void DecodeBatchPanel::setServiceNames(const QStringList &services)
{
    m_services = services;
    m_live.clear();
    setTitle(services.isEmpty()
                 ? QStringLiteral("Decode batch — no decode service")
                 : QStringLiteral("Decode batch — %1").arg(services.join(QStringLiteral(", "))));
    chooseSeries();
}

void DecodeBatchPanel::showProblem(const QString &service, const QString &reason)
{
    if (!m_services.contains(service))
        return;
    m_problems.insert(service, {reason, nowMs()});
    redraw();
}

void DecodeBatchPanel::selectRank(int dpRank)
{
    m_rank = dpRank;
    const int index = m_rankSelector->findData(dpRank);
    if (index >= 0)
        m_rankSelector->setCurrentIndex(index);
    chooseSeries();
    redraw();
}

bool DecodeBatchPanel::showsLiveLoads(const QString &service) const
{
    return m_rank < 0 && m_live.value(service);
}

bool DecodeBatchPanel::liveUsable(const QString &service) const
{
    const auto live = latest(service, liveRunning);
    if (!live)
        return false;
    // The poller falls back to the gauges when /v1/loads fails; those are
    // not live, and are drawn as gauges with their age.
    const SeriesSources::Entry *entry = sources()->find(service, liveRunning);
    if (entry && entry->value.source == QStringLiteral("/metrics"))
        return false;
    const auto gauge = latest(service, QStringLiteral("running"));
    return nowMs() - live->timeMs <= staleAfterMs || !gauge || gauge->timeMs <= live->timeMs;
}

void DecodeBatchPanel::updateRanks()
{
    static const QRegularExpression rankPattern(
        QStringLiteral("^running\\{dp_rank=\"(\\d+)\"\\}$"));
    QList<int> ranks;
    for (const auto &series : hotWindow()->seriesKeys()) {
        if (!m_services.contains(series.service))
            continue;
        const auto match = rankPattern.match(series.key);
        if (match.hasMatch() && !ranks.contains(match.captured(1).toInt()))
            ranks << match.captured(1).toInt();
    }
    std::sort(ranks.begin(), ranks.end());
    if (ranks == m_ranks)
        return;
    m_ranks = ranks;
    const QSignalBlocker blocker(m_rankSelector);
    while (m_rankSelector->count() > 1)
        m_rankSelector->removeItem(1);
    for (int rank : std::as_const(ranks))
        m_rankSelector->addItem(QStringLiteral("dp %1").arg(rank), rank);
    m_rankSelector->setCurrentIndex(std::max(0, m_rankSelector->findData(m_rank)));
    m_rankSelector->setVisible(!ranks.isEmpty());
}

void DecodeBatchPanel::chooseSeries()
{
    updateRanks();
    const bool several = m_services.size() > 1;
    QVector<PanelSeries> wanted;
    for (const QString &service : std::as_const(m_services)) {
        const bool live = m_rank < 0 && liveUsable(service);
        m_live.insert(service, live);
        const QString running = gaugeKey("running", liveRunning, m_rank, live);
        const QString waiting = gaugeKey("waiting", liveWaiting, m_rank, live);
        const QString suffix = several ? QStringLiteral(" · ") + service : QString();
        const int colour = several ? int(wanted.size()) : 0;
        wanted.append(
            {service, running, QStringLiteral("running requests") + suffix, panelColor(colour), 1});
        wanted.append({service, waiting, QStringLiteral("waiting requests") + suffix,
                       panelColor(colour + 1), 1});
    }
    bool same = wanted.size() == series().size();
    for (qsizetype i = 0; same && i < wanted.size(); ++i)
        same = wanted[i].key == series()[i].key && wanted[i].label == series()[i].label;
    if (!same)
        setSeries(wanted);
}

QString DecodeBatchPanel::gaugeLine(const QString &service, const QString &runningKey,
                                    const QString &waitingKey) const
{
    const auto running = latest(service, runningKey);
    const auto waiting = latest(service, waitingKey);
    if (!running && !waiting)
        return QString();
    QString line = QStringLiteral("running %1 · waiting %2")
                       .arg(running ? formatValue(running->value) : QStringLiteral("–"),
                            waiting ? formatValue(waiting->value) : QStringLiteral("–"));
    const SeriesSources::Entry *entry = sources()->find(service, runningKey);
    if (!entry)
        return line;
    if (runningKey == liveRunning)
        return line + QStringLiteral(" — live from ") + entry->value.source;
    line += QStringLiteral(" — from ") + entry->value.source;
    if (!entry->value.refresh.isEmpty()) {
        const qint64 age = nowMs() - entry->value.sampledAtMs;
        line += age >= 1000 ? QStringLiteral(", unchanged %1").arg(formatAge(age))
                            : QStringLiteral(", just changed");
        // The line names the interval; the tooltip has the full explanation.
        line += QStringLiteral(", refreshed ") +
                entry->value.refresh.section(QStringLiteral(" ("), 0, 0);
    } else if (nowMs() - entry->scrapeMs > staleAfterMs) {
        line += QStringLiteral(", read %1 ago").arg(formatAge(nowMs() - entry->scrapeMs));
    }
    return line;
}

QString DecodeBatchPanel::latestLine() const
{
    QStringList lines;
    for (const QString &service : m_services) {
        const bool live = showsLiveLoads(service);
        const QString running = gaugeKey("running", liveRunning, m_rank, live);
        const QString waiting = gaugeKey("waiting", liveWaiting, m_rank, live);
        QString line = gaugeLine(service, running, waiting);
        const auto problem = m_problems.constFind(service);
        const auto last = latest(service, running);
        // A failed read after the last sample: the old numbers are not today's.
        if (problem != m_problems.constEnd() && (!last || last->timeMs < problem->timeMs))
            line = QStringLiteral("running — · waiting — — no reading: %1%2")
                       .arg(problem->reason, last ? QStringLiteral(" (last read %1 ago)")
                                                        .arg(formatAge(nowMs() - last->timeMs))
                                                  : QString());
        if (line.isEmpty())
            line = QStringLiteral("no sample yet");
        if (m_rank >= 0)
            line = QStringLiteral("dp %1: ").arg(m_rank) + line;
        lines << (m_services.size() > 1 ? service + QStringLiteral(": ") + line : line);
    }
    return lines.isEmpty() ? QStringLiteral("no decode service") : lines.join(QLatin1Char('\n'));
}
