#include "histogram.h"

#include <algorithm>

namespace opsdeck::sim {

Histogram::Histogram(std::vector<double> upperBounds)
    : m_bounds(std::move(upperBounds)), m_buckets(m_bounds.size() + 1, 0)
{
}

void Histogram::observe(double value, std::uint64_t times)
{
    // Prometheus buckets are "less than or equal": lower_bound finds the first bound >= value.
    const auto it = std::lower_bound(m_bounds.begin(), m_bounds.end(), value);
    m_buckets[static_cast<size_t>(it - m_bounds.begin())] += times;
    m_sum += value * static_cast<double>(times);
    m_count += times;
}

std::vector<std::uint64_t> Histogram::cumulativeCounts() const
{
    std::vector<std::uint64_t> out(m_buckets.size());
    std::uint64_t running = 0;
    for (size_t i = 0; i < m_buckets.size(); ++i) {
        running += m_buckets[i];
        out[i] = running;
    }
    return out;
}

} // namespace opsdeck::sim
