#pragma once

#include <QWidget>

class QLabel;
class TimeSeriesChart;

namespace opsdeck::probes {
class LoadHistory;
}

/// Decode batch size live: running and waiting requests of the decode
/// service over the last 5 minutes, with the latest values and where they
/// come from (/v1/loads, else the metrics gauges summed over dp ranks).
/// Redraws at most 4 times a second whatever the sample rate. A view only.
class DecodeBatchPanel : public QWidget
{
    Q_OBJECT
public:
    explicit DecodeBatchPanel(opsdeck::probes::LoadHistory *history, QWidget *parent = nullptr);

    TimeSeriesChart *chart() const { return m_chart; }
    /// Shows why no sample arrives (bad page, service down), until the next sample.
    void showProblem(const QString &service, const QString &reason);

private:
    void redraw();

    opsdeck::probes::LoadHistory *m_history;
    TimeSeriesChart *m_chart;
    QLabel *m_title;
    QLabel *m_latest;
    bool m_dirty = false;
};
