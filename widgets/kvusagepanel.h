#pragma once

#include "inventory.h"
#include "seriespanel.h"

/// KV cache usage per service in % (the engine's ratio × 100; averaged over
/// dp ranks, the fullest rank named in the latest line from "kv_usage_max").
class KvUsagePanel : public SeriesPanel
{
    Q_OBJECT
public:
    KvUsagePanel(opsdeck::history::HotWindow *window, const SeriesSources *sources,
                 QWidget *parent = nullptr);
    /// Prefill, decode and engine services; others are ignored.
    void setServices(const QVector<opsdeck::inventory::Service> &services);

protected:
    QString latestLine() const override;
};
