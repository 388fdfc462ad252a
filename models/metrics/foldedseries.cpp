#include "foldedseries.h"

#include <cmath>

namespace opsdeck::metrics {

FoldedSeries::FoldedSeries(const std::vector<const Sample *> &samples)
{
    inOrder.reserve(samples.size());
    byGroup.reserve(samples.size());
    for (const Sample *s : samples) {
        if (!s || std::isnan(s->value))
            continue;
        const SeriesGroup group(*s);
        if (byGroup.try_emplace(group, s).second)
            inOrder.push_back(group);
    }
}

const Sample *FoldedSeries::find(const SeriesGroup &group) const
{
    const auto it = byGroup.find(group);
    return it == byGroup.end() ? nullptr : it->second;
}

} // namespace opsdeck::metrics
