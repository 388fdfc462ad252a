#pragma once

#include "chartmarker.h"
#include "inventory.h"

#include <QWidget>

class QBoxLayout;
class SeriesPanel;
class SeriesSources;

namespace opsdeck::history {
class HotWindow;
}

/// Prefill/decode disaggregation at a glance: the four PD queues (prefill
/// bootstrap and inflight, decode prealloc and transfer; requests) in one
/// chart, and the bootstrap and transfer failure rates (failures/min, from
/// the failure counters between scrapes) in another.
/// SGLang refreshes its queue gauges with its scheduler stats (every
/// decode_log_interval decode steps, 30 s when idle): the tooltip says so.
class PdQueuesPanel : public QWidget
{
    Q_OBJECT
public:
    PdQueuesPanel(opsdeck::history::HotWindow *window, const SeriesSources *sources,
                  QWidget *parent = nullptr);
    /// Prefill and decode services; others are ignored.
    void setServices(const QVector<opsdeck::inventory::Service> &services);
    void setMarkers(const QVector<ChartMarker> &markers);
    /// Queues above failures (Qt::Vertical, the default) or beside them.
    void setOrientation(Qt::Orientation orientation);
    SeriesPanel *queues() const { return m_queues; }
    SeriesPanel *failures() const { return m_failures; }

private:
    SeriesPanel *m_queues;
    SeriesPanel *m_failures;
    QBoxLayout *m_layout;
};
