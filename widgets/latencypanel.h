#pragma once

#include "inventory.h"
#include "seriespanel.h"

class QComboBox;

/// TTFT, ITL or E2E latency (chosen in a selector), p50 and p99 per service,
/// in ms. The quantiles are the console's own, over a sliding 1-minute window
/// of histogram bucket deltas (MetricsSampler); a minute without an
/// observation gives no point, so a quiet service shows the placeholder
/// "no TTFT observations in the last minute" rather than a stale line.
class LatencyPanel : public SeriesPanel
{
    Q_OBJECT
public:
    enum class Latency
    {
        Ttft,
        Itl,
        E2e
    };

    LatencyPanel(opsdeck::history::HotWindow *window, const SeriesSources *sources,
                 QWidget *parent = nullptr);
    /// Services that may record latency histograms; those with points for
    /// the chosen latency are drawn (all of them while none has any).
    void setServices(const QVector<opsdeck::inventory::Service> &services);
    void setLatency(Latency latency);
    Latency latency() const { return m_latency; }
    QComboBox *selector() const { return m_selector; }

protected:
    QString latestLine() const override;
    void chooseSeries() override;

private:
    QString prefix() const;
    QString name() const;
    QVector<PanelSeries> seriesFor(const QStringList &services) const;
    /// "53 ms", or "< 100 ms" / "> 30000 ms" when the quantile fell in the
    /// first or last bucket (SeriesValue::bound).
    QString quantileText(const PanelSeries &series,
                         const std::optional<opsdeck::history::Sample> &sample) const;

    QComboBox *m_selector;
    QStringList m_services;
    Latency m_latency = Latency::Ttft;
};
