#include "metricsdashboard.h"

#include "decodebatchpanel.h"
#include "kvusagepanel.h"
#include "latencypanel.h"
#include "pdqueuespanel.h"
#include "routerhealthpanel.h"
#include "seriessources.h"
#include "throughputpanel.h"
#include "timeserieschart.h"

#include <QGridLayout>
#include <QResizeEvent>
#include <QScrollArea>
#include <QVBoxLayout>

using opsdeck::inventory::Role;

namespace {

constexpr int twoColumnWidthPx = 1200;
// Title, latest line and a chart whose plot is ~200 px high: lines stay apart.
constexpr int panelHeightPx = 340;

// A chart stays readable, and cheap to redraw, with a few lines per service;
// a fleet of 64 engines would be 128 tangled lines redrawn every second.
constexpr qsizetype maxServicesPerPanel = 8;

struct Chosen
{
    QVector<opsdeck::inventory::Service> services; ///< at most maxServicesPerPanel
    qsizetype total = 0;                           ///< how many had the roles
};

Chosen withRoles(const opsdeck::inventory::Inventory &inventory, std::initializer_list<Role> roles)
{
    Chosen chosen;
    for (const auto &s : inventory.services) {
        if (std::find(roles.begin(), roles.end(), s.role) == roles.end())
            continue;
        ++chosen.total;
        if (chosen.services.size() < maxServicesPerPanel)
            chosen.services.append(s);
    }
    return chosen;
}

void noteCoverage(SeriesPanel *panel, const Chosen &chosen)
{
    if (chosen.total > chosen.services.size())
        panel->setTitle(QStringLiteral("%1 · first %2 of %3 services (inventory order)")
                            .arg(panel->title())
                            .arg(chosen.services.size())
                            .arg(chosen.total));
}

template <typename Panel> void showServices(Panel *panel, const Chosen &chosen)
{
    panel->setServices(chosen.services);
    noteCoverage(panel, chosen);
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
        panel->setMinimumHeight(panelHeightPx);
    arrange(2);
}

MetricsDashboard::~MetricsDashboard() = default;

QList<SeriesPanel *> MetricsDashboard::panels() const
{
    return {m_decode,      m_throughput,         m_kvUsage,
            m_latency,     m_pdQueues->queues(), m_pdQueues->failures(),
            m_routerHealth};
}

void MetricsDashboard::setRangeText(const QString &text)
{
    for (SeriesPanel *panel : panels())
        panel->chart()->setRangeText(text);
}

void MetricsDashboard::arrange(int columns)
{
    if (columns == m_columns)
        return;
    m_columns = columns;
    struct Place
    {
        QWidget *panel;
        int row, column, span;
    };
    // Wide: the decode batch across the top (the number an incident turns
    // on), pairs below, the PD queues and failures side by side at the end.
    const QList<Place> places =
        columns == 2
            ? QList<Place>{{m_decode, 0, 0, 2},  {m_throughput, 1, 0, 1},   {m_latency, 1, 1, 1},
                           {m_kvUsage, 2, 0, 1}, {m_routerHealth, 2, 1, 1}, {m_pdQueues, 3, 0, 2}}
            : QList<Place>{{m_decode, 0, 0, 1},   {m_throughput, 1, 0, 1},
                           {m_latency, 2, 0, 1},  {m_kvUsage, 3, 0, 1},
                           {m_pdQueues, 4, 0, 1}, {m_routerHealth, 5, 0, 1}};
    for (const Place &place : places)
        m_grid->removeWidget(place.panel);
    for (const Place &place : places)
        m_grid->addWidget(place.panel, place.row, place.column, 1, place.span);
    m_pdQueues->setOrientation(columns == 2 ? Qt::Horizontal : Qt::Vertical);
    m_pdQueues->setMinimumHeight(columns == 2 ? panelHeightPx : 2 * panelHeightPx + 16);
    for (int c = 0; c < 2; ++c)
        m_grid->setColumnStretch(c, c < columns ? 1 : 0);
    // Spare height goes below the last row, not into stretched charts.
    for (int r = 0; r < 7; ++r)
        m_grid->setRowStretch(r, 0);
    m_grid->setRowStretch(columns == 2 ? 4 : 6, 1);
}

void MetricsDashboard::resizeEvent(QResizeEvent *event)
{
    arrange(event->size().width() >= twoColumnWidthPx ? 2 : 1);
    QWidget::resizeEvent(event);
}

void MetricsDashboard::setInventory(const opsdeck::inventory::Inventory &inventory)
{
    showServices(m_decode, withRoles(inventory, {Role::Decode, Role::Engine}));
    const auto engines = withRoles(inventory, {Role::Prefill, Role::Decode, Role::Engine});
    showServices(m_throughput, engines);
    showServices(m_kvUsage, engines);
    showServices(m_latency,
                 withRoles(inventory, {Role::Prefill, Role::Decode, Role::Engine, Role::Router}));
    const auto pd = withRoles(inventory, {Role::Prefill, Role::Decode});
    m_pdQueues->setServices(pd.services);
    noteCoverage(m_pdQueues->queues(), pd);
    noteCoverage(m_pdQueues->failures(), pd);
    showServices(m_routerHealth, withRoles(inventory, {Role::Router}));
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
