#include "pdqueuespanel.h"

#include "seriespanel.h"

#include <QBoxLayout>

using opsdeck::inventory::Role;

PdQueuesPanel::PdQueuesPanel(opsdeck::history::HotWindow *window, const SeriesSources *sources,
                             QWidget *parent)
    : QWidget(parent), m_queues(new SeriesPanel(QStringLiteral("PD queues"), window, sources)),
      m_failures(new SeriesPanel(QStringLiteral("PD failures"), window, sources)),
      m_layout(new QBoxLayout(QBoxLayout::TopToBottom, this))
{
    m_queues->setUnit(QStringLiteral("requests"));
    m_queues->setEmptyText(
        QStringLiteral("no PD queue gauges read in the last 5 min "
                       "(prefill bootstrap/inflight, decode prealloc/transfer)"));
    m_failures->setUnit(QStringLiteral("failures/min"));
    m_failures->setEmptyText(
        QStringLiteral("no bootstrap or transfer failure counters read in the last 5 min"));
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(16);
    m_layout->addWidget(m_queues, 1);
    m_layout->addWidget(m_failures, 1);
}

void PdQueuesPanel::setServices(const QVector<opsdeck::inventory::Service> &services)
{
    QVector<PanelSeries> queues;
    QVector<PanelSeries> failures;
    auto add = [](QVector<PanelSeries> &to, const QString &service, const char *key,
                  const QString &what, double scale) {
        to.append({service, QLatin1String(key), QStringLiteral("%1 · %2").arg(what, service),
                   panelColor(int(to.size())), scale});
    };
    for (const auto &s : services) {
        if (s.role == Role::Prefill) {
            add(queues, s.name, "prefill_bootstrap_queue", QStringLiteral("bootstrap"), 1);
            add(queues, s.name, "prefill_inflight_queue", QStringLiteral("inflight"), 1);
        } else if (s.role == Role::Decode) {
            add(queues, s.name, "decode_prealloc_queue", QStringLiteral("prealloc"), 1);
            add(queues, s.name, "decode_transfer_queue", QStringLiteral("transfer"), 1);
        } else {
            continue;
        }
        // Recorded per second; per minute keeps rare failures off the axis floor.
        add(failures, s.name, "bootstrap_failures_per_s", QStringLiteral("bootstrap"), 60);
        add(failures, s.name, "transfer_failures_per_s", QStringLiteral("transfer"), 60);
    }
    m_queues->setSeries(queues);
    m_failures->setSeries(failures);
}

void PdQueuesPanel::setMarkers(const QVector<ChartMarker> &markers)
{
    m_queues->setMarkers(markers);
    m_failures->setMarkers(markers);
}

void PdQueuesPanel::setOrientation(Qt::Orientation orientation)
{
    m_layout->setDirection(orientation == Qt::Vertical ? QBoxLayout::TopToBottom
                                                       : QBoxLayout::LeftToRight);
}
