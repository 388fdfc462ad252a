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
    /// `timedOut`: the probe hit its deadline, so `totalMs` is a lower bound.
    void addFresh(qint64 timeMs, double totalMs, bool timedOut = false)
    {
        add(m_fresh, timeMs, totalMs, timedOut);
    }
    void addReused(qint64 timeMs, double totalMs, bool timedOut = false)
    {
        add(m_reused, timeMs, totalMs, timedOut);
    }

    /// The q-quantile (0..1, nearest rank) of the samples in the window, ms;
    /// -1 when there is none.
    double freshPercentile(double q) const { return percentile(m_fresh, q).ms; }
    double reusedPercentile(double q) const { return percentile(m_reused, q).ms; }
    /// True when that quantile is a timed-out probe's deadline: the latency
    /// is at least this, not this (shown as "> 6000 ms").
    bool freshPercentileIsLowerBound(double q) const { return percentile(m_fresh, q).timedOut; }
    bool reusedPercentileIsLowerBound(double q) const { return percentile(m_reused, q).timedOut; }
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
        bool timedOut;
    };
    struct Rank
    {
        double ms = -1;
        bool timedOut = false;
    };
    void add(std::deque<Point> &points, qint64 timeMs, double ms, bool timedOut);
    Rank percentile(const std::deque<Point> &points, double q) const;

    qint64 m_windowMs;
    qint64 m_newestMs = 0;
    std::deque<Point> m_fresh;
    std::deque<Point> m_reused;
};

} // namespace opsdeck::probes
