#pragma once

#include "loadsample.h"
#include "metricssnapshot.h"
#include "pollanswers.h"
#include "servicestatus.h"

#include <QObject>
#include <QPointer>

namespace opsdeck::probes {
class ServicePoller;
}

namespace opsdeck::history {

class HistoryWriter;
class HotWindow;

/// Connects a ServicePoller's results to the history: each becomes samples
/// of (service, key) appended to a HistoryWriter (recorded to disk) and to a
/// HotWindow (the charts' memory), either of which may be absent (a console
/// that another process records for only fills its hot window).
///
/// The poller's results arrive in batches (ServicePoller::answered), each
/// result as the slot for its kind records it. Series recorded:
///   statusChecked -> "up" (unit "boolean": 1 when healthy, else 0) and
///                    "health_latency_ms" (unit "ms", only when an HTTP
///                    answer came: a refused connection has no latency);
///   loadSampled   -> "live_running", "live_waiting" (unit "requests"),
///                    the live decode batch (/v1/loads, else /metrics);
///   metricsSampled-> every SeriesValue under its own key and unit, at the
///                    scrape time (a stale gauge is recorded as the console
///                    saw it then); snapshots with an error are skipped.
/// Thread: lives on the GUI (or main) thread; the poller's signals arrive
/// queued.
class HistoryRecorder : public QObject
{
    Q_OBJECT
public:
    HistoryRecorder(probes::ServicePoller *poller, HistoryWriter *writer, HotWindow *hotWindow,
                    QObject *parent = nullptr);

    /// Samples passed on so far (each key of each result counts one).
    qint64 samplesRecorded() const { return m_samples; }

public Q_SLOTS:
    /// Records a batch: its statuses, loads and snapshots, as the slots below do.
    void recordAnswers(const opsdeck::probes::PollAnswers &answers);
    void recordStatus(const opsdeck::probes::ServiceStatus &status);
    void recordLoad(const opsdeck::probes::LoadSample &sample);
    void recordMetrics(const opsdeck::probes::MetricsSnapshot &snapshot);

private:
    void record(const QString &service, const QString &key, const QString &unit, qint64 timeMs,
                double value);

    QPointer<HistoryWriter> m_writer;
    QPointer<HotWindow> m_hotWindow;
    qint64 m_samples = 0;
};

} // namespace opsdeck::history
