#pragma once

#include <QVector>
#include <deque>

namespace opsdeck::probes {

/// The recent fresh and reused total latencies of one probe path, for the
/// probe lab's charts (issue 4: "fresh and reused latency, p50 and p99 over
/// 1 min"). Samples older than `windowMs` before the newest one added fall
/// out. Percentiles are nearest-rank over what is in the window.
/// Plain data; one thread at a time.
class ProbeLatencyWindow
{
public:
    explicit ProbeLatencyWindow(qint64 windowMs = 60'000) : m_windowMs(windowMs) {}

    /// One probe's total time, ms (curl time_total; a timed-out probe adds
    /// its timeout, so a stall shows as at least that), at `timeMs` (ms since
    /// the Unix epoch, the probe's start).
    void addFresh(qint64 timeMs, double totalMs) { add(m_fresh, timeMs, totalMs); }
    void addReused(qint64 timeMs, double totalMs) { add(m_reused, timeMs, totalMs); }

    /// The q-quantile (0..1, nearest rank) of the samples in the window, ms;
    /// -1 when there is none.
    double freshPercentile(double q) const { return percentile(m_fresh, q); }
    double reusedPercentile(double q) const { return percentile(m_reused, q); }
    qsizetype freshCount() const { return qsizetype(m_fresh.size()); }
    qsizetype reusedCount() const { return qsizetype(m_reused.size()); }
    qint64 windowMs() const { return m_windowMs; }

    /// Nearest rank: the smallest value with at least q × n values at or below it.
    static double percentileOf(QVector<double> values, double q);

private:
    struct Point
    {
        qint64 timeMs;
        double ms;
    };
    void add(std::deque<Point> &points, qint64 timeMs, double ms);
    double percentile(const std::deque<Point> &points, double q) const;

    qint64 m_windowMs;
    qint64 m_newestMs = 0;
    std::deque<Point> m_fresh;
    std::deque<Point> m_reused;
};

} // namespace opsdeck::probes
