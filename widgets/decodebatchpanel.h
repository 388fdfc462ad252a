#pragma once

#include "inventory.h"
#include "seriespanel.h"

#include <QHash>

class QComboBox;

/// Decode batch size: running and waiting requests of the decode (or engine)
/// services, from the HotWindow.
///
/// Which numbers: the live batch ("live_running"/"live_waiting", from
/// SGLang's /v1/loads, read every poll) while it is fresh; else the metrics
/// gauges ("running"/"waiting": sglang:num_running_reqs / num_queue_reqs
/// summed over dp ranks), whose age the latest line shows, because SGLang
/// refreshes them only every decode_log_interval decode steps (default 40)
/// or every 30 s when idle: "running 12 · waiting 0 — from
/// sglang:num_running_reqs, unchanged 8 s, refreshed every 40 decode steps…".
/// The rank selector ("all ranks", "dp 0", "dp 1", …, from the
/// `running{dp_rank="N"}` keys present) draws one rank's gauges instead.
/// Chart series are named "running requests" / "waiting requests" (with
/// " · service" appended when several services are shown).
class DecodeBatchPanel : public SeriesPanel
{
    Q_OBJECT
public:
    DecodeBatchPanel(opsdeck::history::HotWindow *window, const SeriesSources *sources,
                     QWidget *parent = nullptr);

    /// Decode and engine services; others are ignored.
    void setServices(const QVector<opsdeck::inventory::Service> &services);
    void setServiceNames(const QStringList &services);
    QStringList services() const { return m_services; }

    /// Shows why no sample arrives (bad page, service down), until the next sample.
    void showProblem(const QString &service, const QString &reason);

    QComboBox *rankSelector() const { return m_rankSelector; }
    /// Draws one dp rank's gauges; -1: all ranks (the live batch when fresh).
    void selectRank(int dpRank);
    int selectedRank() const { return m_rank; }
    /// True when `service` is drawn from the live batch (/v1/loads).
    bool showsLiveLoads(const QString &service) const;

protected:
    QString latestLine() const override;
    void chooseSeries() override;

private:
    bool liveUsable(const QString &service) const;
    void updateRanks();
    QString gaugeLine(const QString &service, const QString &runningKey,
                      const QString &waitingKey) const;

    QComboBox *m_rankSelector;
    QStringList m_services;
    QList<int> m_ranks;
    QHash<QString, bool> m_live; ///< per service, as last chosen
    struct Problem
    {
        QString reason;
        qint64 timeMs = 0;
    };
    QHash<QString, Problem> m_problems;
    int m_rank = -1;
};
