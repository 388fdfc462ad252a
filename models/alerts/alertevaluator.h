#pragma once

#include "alert.h"
#include "alertwatch.h"
#include "conditiontracker.h"
#include "endtoendresult.h"
#include "loadsample.h"
#include "metricssnapshot.h"
#include "pollanswers.h"
#include "servicestatus.h"

#include <QHash>
#include <QObject>
#include <QVector>
#include <memory>

namespace opsdeck::alerts {

/// Evaluates the inventory's alert rules (AlertWatch) on the samples the
/// poller and the end-to-end probes produce, and says when an alert starts
/// and ends. Decisions use the samples' own times (MetricsSnapshot::timeMs,
/// LoadSample::timeMs, ServiceStatus::lastCheck, EndToEndResult::finishedAtMs),
/// never the wall clock, so a test feeding synthetic samples is exact.
///
/// Rules (README "Alerts"; hysteresis in ConditionTracker):
/// - scheduler_stuck: waiting > 0 and running == 0 on every sample of the
///   service for for_s; a sample with running > 0 or waiting == 0 clears it.
///   The poller's batch-size samples (addLoad: /v1/loads, live) are preferred:
///   once a service has sent one, its /metrics gauges (addMetrics), which
///   SGLang refreshes only every 40 decode steps, no longer count for this rule.
/// - failures_rising: a prefill or decode service of the cluster shows
///   bootstrap_failures_per_s or transfer_failures_per_s > 0 for for_s,
///   allowing gaps of up to 10 s without a new failure; cleared when every
///   member has had none for 10 s.
/// - e2e_failing: the entry service's last health check answered 200 and
///   the last two probes through it (both finished after health last became
///   200) failed; cleared by a successful probe or a health answer other than
///   200. One failure alone raises nothing (EndToEndProbe re-probes within 5 s
///   to confirm it).
/// A sample that could not be read (snapshot error, absent value, no HTTP
/// answer) changes nothing: one lost scrape neither clears nor restarts a rule.
///
/// Thread: a worker object; move it to a worker thread (AlertThread does) and
/// feed it through queued connections. Emits each raise once and each clear once.
class AlertEvaluator : public QObject
{
    Q_OBJECT
public:
    /// Allowed gap between failure samples for failures_rising, ms.
    static constexpr qint64 failureGraceMs = 10'000;

    explicit AlertEvaluator(QObject *parent = nullptr);
    ~AlertEvaluator() override;

    /// Alerts raised and not cleared, in the order raised.
    QVector<Alert> active() const;

public Q_SLOTS:
    /// Replaces what is watched; active alerts of watches that disappear are
    /// cleared (alertCleared), those of watches that stay are kept.
    void setWatches(const QVector<opsdeck::alerts::AlertWatch> &watches);
    /// A batch of the poller's results (ServicePoller::answered): its
    /// statuses, then its loads, then its snapshots, as the slots below take
    /// them (loads before snapshots: the live batch size is preferred).
    void addAnswers(const opsdeck::probes::PollAnswers &answers);
    void addMetrics(const opsdeck::probes::MetricsSnapshot &snapshot);
    void addLoad(const opsdeck::probes::LoadSample &sample);
    void addStatus(const opsdeck::probes::ServiceStatus &status);
    void addProbeResult(const opsdeck::alerts::EndToEndResult &result);

Q_SIGNALS:
    void alertRaised(const opsdeck::alerts::Alert &alert);
    void alertCleared(const opsdeck::alerts::Alert &alert);

private:
    struct Tracked;
    void batchSample(const QString &service, qint64 atMs, std::optional<double> running,
                     std::optional<double> waiting);
    void failureSample(const probes::MetricsSnapshot &snapshot);
    void evaluateE2e(Tracked &tracked, qint64 atMs);
    void apply(Tracked &tracked, ConditionTracker::Change change, qint64 atMs, qint64 sinceMs,
               const QString &text);

    QVector<std::shared_ptr<Tracked>> m_tracked;
    QHash<QString, bool> m_hasLoadSamples; ///< services that sent a LoadSample
    QVector<QString> m_order;              ///< keys of active alerts, in the order raised
};

} // namespace opsdeck::alerts
