#pragma once

#include "inventory.h"
#include "seriespanel.h"

/// Token throughput: prompt tokens/s of prefill services and generation
/// tokens/s of decode services (engines: both), computed by the console from
/// the token counters between two scrapes (not the engine's own throughput
/// gauge, which holds its last value when idle).
class ThroughputPanel : public SeriesPanel
{
    Q_OBJECT
public:
    ThroughputPanel(opsdeck::history::HotWindow *window, const SeriesSources *sources,
                    QWidget *parent = nullptr);
    /// Prefill, decode and engine services; others are ignored.
    void setServices(const QVector<opsdeck::inventory::Service> &services);
};
