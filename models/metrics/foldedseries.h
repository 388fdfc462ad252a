#pragma once

// Aggregation rule 1 as a lookup: the first non-NaN sample of each series
// group (SeriesGroup, replicas dropped) in page order, and the same found by
// group, for matching a series with itself on another page (rates, windows).
//
// Lifetime: points into the samples' page, which must outlive it.
// Thread-safety: a value; const use from any thread.

#include "seriesgroup.h"

#include <vector>

namespace opsdeck::metrics {

struct FoldedSeries
{
    /// `samples` of one name, in page order; NaN samples (no value) are skipped.
    explicit FoldedSeries(const std::vector<const Sample *> &samples);

    /// The first sample of `group`'s group here, or nullptr.
    const Sample *find(const SeriesGroup &group) const;

    std::vector<SeriesGroup> inOrder; ///< first sample of each group, page order
    SeriesGroupMap<const Sample *> byGroup;
};

} // namespace opsdeck::metrics
