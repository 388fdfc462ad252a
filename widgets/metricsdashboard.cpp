#include "metricsdashboard.h"

#include "decodebatchpanel.h"
#include "kvusagepanel.h"
#include "latencypanel.h"
#include "pdqueuespanel.h"
#include "routerhealthpanel.h"
#include "seriessources.h"
#include "throughputpanel.h"

#include <QGridLayout>
#include <QResizeEvent>
#include <QScrollArea>
#include <QVBoxLayout>

using opsdeck::inventory::Role;

namespace {

constexpr int twoColumnWidthPx = 1200;

QVector<opsdeck::inventory::Service> withRoles(const opsdeck::inventory::Inventory &inventory,
                                               std::initializer_list<Role> roles)
{
    QVector<opsdeck::inventory::Service> services;
    for (const auto &s : inventory.services)
        if (std::find(roles.begin(), roles.end(), s.role) != roles.end())
            services.append(s);
    return services;
}

} // namespace

MetricsDashboard::MetricsDashboard(opsdeck::history::HotWindow *window, QWidget *parent)
    : QWidget(parent), m_sources(std::make_unique<SeriesSources>()),
      m_decode(new DecodeBatchPanel(window, m_sources.get())),
      m_throughput(new ThroughputPanel(window, m_sources.get())),
      m_kvUsage(new KvUsagePanel(window, m_sources.get())),
      m_latency(new LatencyPanel(window, m_sources.get())),
      m_pdQueues(new PdQueuesPanel(window, m_sources.get())),
      m_routerHealth(new RouterHealthPanel(window, m_sources.get())), m_scroll(new QScrollArea),
      m_grid(new QGridLayout)
{
    auto *content = new QWidget;
    content->setLayout(m_grid);
    m_grid->setContentsMargins(0, 0, 8, 0);
    m_grid->setHorizontalSpacing(16);
    m_grid->setVerticalSpacing(18);
    m_scroll->setWidget(content);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_scroll);
    for (SeriesPanel *panel : panels())
        panel->setMinimumHeight(panel->parent() == nullptr ? 280 : 230);
    m_pdQueues->setMinimumHeight(2 * 230 + 8);
    arrange(2);
}

MetricsDashboard::~MetricsDashboard() = default;

QList<SeriesPanel *> MetricsDashboard::panels() const
{
    return {m_decode,      m_throughput,         m_kvUsage,
            m_latency,     m_pdQueues->queues(), m_pdQueues->failures(),
            m_routerHealth};
}

void MetricsDashboard::arrange(int columns)
{
    if (columns == m_columns)
        return;
    m_columns = columns;
    const QList<QWidget *> order{m_decode,  m_throughput, m_kvUsage,
                                 m_latency, m_pdQueues,   m_routerHealth};
    for (QWidget *w : order)
        m_grid->removeWidget(w);
    for (int i = 0; i < order.size(); ++i)
        m_grid->addWidget(order[i], i / columns, i % columns);
    for (int c = 0; c < 2; ++c)
        m_grid->setColumnStretch(c, c < columns ? 1 : 0);
}

void MetricsDashboard::resizeEvent(QResizeEvent *event)
{
    arrange(event->size().width() >= twoColumnWidthPx ? 2 : 1);
    QWidget::resizeEvent(event);
}

void MetricsDashboard::setInventory(const opsdeck::inventory::Inventory &inventory)
{
    m_decode->setServices(withRoles(inventory, {Role::Decode, Role::Engine}));
    const auto engines = withRoles(inventory, {Role::Prefill, Role::Decode, Role::Engine});
    m_throughput->setServices(engines);
    m_kvUsage->setServices(engines);
    m_latency->setServices(
        withRoles(inventory, {Role::Prefill, Role::Decode, Role::Engine, Role::Router}));
    m_pdQueues->setServices(withRoles(inventory, {Role::Prefill, Role::Decode}));
    m_routerHealth->setServices(withRoles(inventory, {Role::Router}));
}

void MetricsDashboard::setMarkers(const QVector<ChartMarker> &markers)
{
    for (SeriesPanel *panel : panels())
        panel->setMarkers(markers);
}

void MetricsDashboard::setWindowMs(qint64 windowMs)
{
    for (SeriesPanel *panel : panels())
        panel->setWindowMs(windowMs);
}

void MetricsDashboard::noteSnapshot(const opsdeck::probes::MetricsSnapshot &snapshot)
{
    m_sources->note(snapshot);
}

void MetricsDashboard::noteLoad(const opsdeck::probes::LoadSample &sample)
{
    m_sources->noteLoad(sample);
}

void MetricsDashboard::showProblem(const QString &service, const QString &reason)
{
    m_decode->showProblem(service, reason);
}
