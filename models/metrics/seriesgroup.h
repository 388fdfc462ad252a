#pragma once

// A series' identity by its label SET, for matching series across two pages
// and folding tensor-parallel replicas (aggregation.h rule 1) without building
// a string key per sample: the labels are hashed and compared in place, in
// any order. Which labels count is chosen by the caller:
// - Replicas::Drop leaves out `tp_rank`, `moe_ep_rank` and `pid` (rule 1);
// - Le::Drop leaves out `le`, so every bucket of one histogram series has the
//   same identity (its resets and its `_created` are per series).
// The sample's name is not part of the identity: callers match within one name.
//
// Equality assumes a sample has no two labels of the same name (the parser
// refuses them: "duplicate label name").
//
// Lifetime: holds a pointer to the sample, whose page must outlive it.
// Thread-safety: a value type; const use from any thread.

#include "metricpage.h"

#include <cstddef>
#include <string_view>
#include <unordered_map>

namespace opsdeck::metrics {

class SeriesGroup
{
public:
    enum class Replicas
    {
        Keep,
        Drop
    };
    enum class Le
    {
        Keep,
        Drop
    };

    explicit SeriesGroup(const Sample &sample, Replicas replicas = Replicas::Drop,
                         Le le = Le::Keep);

    /// `tp_rank`, `moe_ep_rank`, `pid`: labels that tell copies of one value apart.
    static bool isReplicaLabel(std::string_view name);

    const Sample &sample() const { return *m_sample; }
    /// Equal groups have equal hashes.
    std::size_t hash() const { return m_hash; }
    bool operator==(const SeriesGroup &other) const;

    struct Hash
    {
        std::size_t operator()(const SeriesGroup &group) const { return group.m_hash; }
    };

private:
    bool counts(std::string_view labelName) const;

    const Sample *m_sample;
    Replicas m_replicas;
    Le m_le;
    std::size_t m_size = 0; ///< labels that count
    std::size_t m_hash = 0; ///< order-independent: a sum of per-label hashes
};

/// A map keyed by series identity.
template <typename T> using SeriesGroupMap = std::unordered_map<SeriesGroup, T, SeriesGroup::Hash>;

} // namespace opsdeck::metrics
