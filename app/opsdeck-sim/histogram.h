#pragma once

#include <cstdint>
#include <vector>

namespace opsdeck::sim {

/// A Prometheus histogram: cumulative counts per upper bound plus +Inf, sum
/// and count. Not thread-safe: the owner (EngineMetrics, RouterMetrics) locks.
class Histogram
{
public:
    /// `upperBounds` ascending, without +Inf.
    explicit Histogram(std::vector<double> upperBounds);

    void observe(double value, std::uint64_t times = 1);

    const std::vector<double> &upperBounds() const { return m_bounds; }
    /// Cumulative count per bound, then the +Inf bucket (== count()).
    std::vector<std::uint64_t> cumulativeCounts() const;
    double sum() const { return m_sum; }
    std::uint64_t count() const { return m_count; }

private:
    std::vector<double> m_bounds;
    std::vector<std::uint64_t> m_buckets; // non-cumulative, size bounds + 1
    double m_sum = 0.0;
    std::uint64_t m_count = 0;
};

} // namespace opsdeck::sim
