#include "probelatencywindow.h"

#include <algorithm>
#include <cmath>

namespace opsdeck::probes {

void ProbeLatencyWindow::add(std::deque<Point> &points, qint64 timeMs, double ms, bool timedOut)
{
    m_newestMs = std::max(m_newestMs, timeMs);
    points.push_back({timeMs, ms, timedOut});
    // Both series age against the newest probe of either: a path whose reused
    // probes stopped answering must not keep an old p50 forever.
    const qint64 oldest = m_newestMs - m_windowMs;
    for (std::deque<Point> *series : {&m_fresh, &m_reused})
        series->erase(std::remove_if(series->begin(), series->end(),
                                     [oldest](const Point &p) { return p.timeMs < oldest; }),
                      series->end());
}

ProbeLatencyWindow::Rank ProbeLatencyWindow::percentile(const std::deque<Point> &points,
                                                        double q) const
{
    QVector<double> values;
    values.reserve(qsizetype(points.size()));
    for (const Point &p : points)
        values.append(p.ms);
    Rank rank;
    rank.ms = percentileOf(std::move(values), q);
    // The chosen value is a bound when a timed-out probe has it: at equal
    // times a deadline and an answer are the same number, the bound is the
    // honest reading.
    rank.timedOut = std::any_of(points.cbegin(), points.cend(),
                                [&](const Point &p) { return p.timedOut && p.ms == rank.ms; });
    return rank;
}

double ProbeLatencyWindow::percentileOf(QVector<double> values, double q)
{
    if (values.isEmpty())
        return -1;
    std::sort(values.begin(), values.end());
    const double rank = std::ceil(std::clamp(q, 0.0, 1.0) * double(values.size()));
    const qsizetype index = std::clamp<qsizetype>(qsizetype(rank) - 1, 0, values.size() - 1);
    return values[index];
}

} // namespace opsdeck::probes
