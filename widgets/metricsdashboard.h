#pragma once

#include "chartmarker.h"
#include "inventory.h"
#include "loadsample.h"
#include "metricssnapshot.h"

#include <QWidget>
#include <memory>

class DecodeBatchPanel;
class KvUsagePanel;
class LatencyPanel;
class PdQueuesPanel;
class QGridLayout;
class QScrollArea;
class RouterHealthPanel;
class SeriesPanel;
class SeriesSources;
class ThroughputPanel;

namespace opsdeck::history {
class HotWindow;
}

/// Every metrics panel of the console in one scrollable grid: decode batch,
/// throughput, KV usage, latency (TTFT / ITL / E2E), PD queues and failures,
/// router worker health. Two columns when there is room (≥ 1200 px), else one.
///
/// Values come from the HotWindow (filled by HistoryRecorder); where they
/// come from (metric family, refresh interval, the engine's sample time),
/// for tooltips and age texts, from the snapshots and load samples passed to
/// noteSnapshot() / noteLoad() — fed the same poller results the recorder
/// takes (MainWindow passes each batch on). Thread: GUI thread; the hot window outlives the
/// dashboard.
class MetricsDashboard : public QWidget
{
    Q_OBJECT
public:
    explicit MetricsDashboard(opsdeck::history::HotWindow *window, QWidget *parent = nullptr);
    ~MetricsDashboard() override;

    /// Chooses each panel's services by role: decode batch the decode and
    /// engine services; throughput and KV usage prefill, decode and engine;
    /// latency those and the router; PD queues prefill and decode; router
    /// health the routers.
    void setInventory(const opsdeck::inventory::Inventory &inventory);
    /// Markers drawn on every chart.
    void setMarkers(const QVector<ChartMarker> &markers);
    /// Live span of every chart, ms (default 5 min).
    void setWindowMs(qint64 windowMs);

    DecodeBatchPanel *decodePanel() const { return m_decode; }
    ThroughputPanel *throughputPanel() const { return m_throughput; }
    KvUsagePanel *kvUsagePanel() const { return m_kvUsage; }
    LatencyPanel *latencyPanel() const { return m_latency; }
    PdQueuesPanel *pdQueuesPanel() const { return m_pdQueues; }
    RouterHealthPanel *routerHealthPanel() const { return m_routerHealth; }
    /// Every chart panel (PD queues counts as its two charts).
    QList<SeriesPanel *> panels() const;
    /// Every chart's subtitle: the range shown ("last 1 h from Prometheus at 10:02").
    void setRangeText(const QString &text);
    const SeriesSources &sources() const { return *m_sources; }

public Q_SLOTS:
    /// Records the sources, refresh intervals and sample times of a scrape.
    void noteSnapshot(const opsdeck::probes::MetricsSnapshot &snapshot);
    /// Records where a live batch sample came from (/v1/loads or /metrics).
    void noteLoad(const opsdeck::probes::LoadSample &sample);
    /// Shown on the decode panel until the service's next sample.
    void showProblem(const QString &service, const QString &reason);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void arrange(int columns);

    std::unique_ptr<SeriesSources> m_sources;
    DecodeBatchPanel *m_decode;
    ThroughputPanel *m_throughput;
    KvUsagePanel *m_kvUsage;
    LatencyPanel *m_latency;
    PdQueuesPanel *m_pdQueues;
    RouterHealthPanel *m_routerHealth;
    QScrollArea *m_scroll;
    QGridLayout *m_grid;
    int m_columns = 0;
};
