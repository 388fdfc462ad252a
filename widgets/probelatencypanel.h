#pragma once

#include "probepath.h"
#include "seriespanel.h"

/// One probe path's latency in the probe lab: fresh and reused p50 and p99
/// (ms, over the last minute of probes, ProbeLatencyWindow) as recorded by
/// ProbeLab into the hot window. A reused p50 far above the fresh one is the
/// keep-alive stall the lab looks for. Thread: GUI thread.
class ProbeLatencyPanel : public SeriesPanel
{
    Q_OBJECT
public:
    ProbeLatencyPanel(const opsdeck::probes::ProbePath &path, opsdeck::history::HotWindow *window,
                      QWidget *parent = nullptr);
    const opsdeck::probes::ProbePath &path() const { return m_path; }

protected:
    QString latestLine() const override;
    QString sourceLine(const PanelSeries &series) const override;

private:
    opsdeck::probes::ProbePath m_path;
};
