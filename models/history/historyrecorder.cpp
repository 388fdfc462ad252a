#include "historyrecorder.h"

#include "historywriter.h"
#include "hotwindow.h"
#include "servicepoller.h"

namespace opsdeck::history {

HistoryRecorder::HistoryRecorder(probes::ServicePoller *poller, HistoryWriter *writer,
                                 HotWindow *hotWindow, QObject *parent)
    : QObject(parent), m_writer(writer), m_hotWindow(hotWindow)
{
    if (!poller)
        return;
    connect(poller, &probes::ServicePoller::answered, this, &HistoryRecorder::recordAnswers);
}

void HistoryRecorder::recordAnswers(const probes::PollAnswers &answers)
{
    for (const probes::ServiceStatus &status : answers.statuses)
        recordStatus(status);
    for (const probes::LoadSample &sample : answers.loads)
        recordLoad(sample);
    for (const probes::MetricsSnapshot &snapshot : answers.snapshots)
        recordMetrics(snapshot);
}

void HistoryRecorder::record(const QString &service, const QString &key, const QString &unit,
                             qint64 timeMs, double value)
{
    ++m_samples;
    if (m_writer)
        m_writer->append(service, key, unit, timeMs, value);
    if (m_hotWindow)
        m_hotWindow->append(service, key, timeMs, value);
}

void HistoryRecorder::recordStatus(const probes::ServiceStatus &status)
{
    const qint64 timeMs = status.lastCheck.toMSecsSinceEpoch();
    record(status.name, QStringLiteral("up"), QStringLiteral("boolean"), timeMs,
           status.state == probes::ServiceState::Healthy ? 1.0 : 0.0);
    if (status.httpStatus != 0 && status.latencyMs)
        record(status.name, QStringLiteral("health_latency_ms"), QStringLiteral("ms"), timeMs,
               *status.latencyMs);
}

void HistoryRecorder::recordLoad(const probes::LoadSample &sample)
{
    record(sample.service, QStringLiteral("live_running"), QStringLiteral("requests"),
           sample.timeMs, sample.running);
    record(sample.service, QStringLiteral("live_waiting"), QStringLiteral("requests"),
           sample.timeMs, sample.waiting);
}

void HistoryRecorder::recordMetrics(const probes::MetricsSnapshot &snapshot)
{
    if (!snapshot.error.isEmpty())
        return;
    for (const probes::SeriesValue &value : snapshot.values)
        record(snapshot.service, value.key, value.unit, snapshot.timeMs, value.value);
}

} // namespace opsdeck::history
