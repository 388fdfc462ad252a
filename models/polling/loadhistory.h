#pragma once

#include "loadsample.h"

#include <QObject>
#include <deque>

namespace opsdeck::probes {

/// The decode batch panel's data: running and waiting requests of one decode
/// service over a sliding window (default 5 min). Memory is bounded by the
/// window: at 1 sample/s, 300 samples × 24 bytes.
/// Thread: GUI thread; feed it the poller's load samples (ServicePoller::answered, queued).
class LoadHistory : public QObject
{
    Q_OBJECT
public:
    explicit LoadHistory(QObject *parent = nullptr);

    void setService(const QString &service);
    QString service() const { return m_service; }
    void setWindowMs(qint64 windowMs) { m_windowMs = windowMs; }
    qint64 windowMs() const { return m_windowMs; }

    /// Appends a sample of this service (others are ignored) and drops
    /// samples older than the window, measured from the newest sample.
    void append(const LoadSample &sample);
    const std::deque<LoadSample> &samples() const { return m_samples; }

Q_SIGNALS:
    void sampleAppended(const opsdeck::probes::LoadSample &sample);

private:
    QString m_service;
    qint64 m_windowMs = 5 * 60 * 1000;
    std::deque<LoadSample> m_samples;
};

} // namespace opsdeck::probes
