#pragma once

#include "inventory.h"
#include "seriespanel.h"

/// Router worker health: healthy and total workers the router reports
/// (sgl_router_* / smg_* gauges) over time, and "3 of 4 workers healthy".
class RouterHealthPanel : public SeriesPanel
{
    Q_OBJECT
public:
    RouterHealthPanel(opsdeck::history::HotWindow *window, const SeriesSources *sources,
                      QWidget *parent = nullptr);
    /// Router services; others are ignored.
    void setServices(const QVector<opsdeck::inventory::Service> &services);

protected:
    QString latestLine() const override;
};
