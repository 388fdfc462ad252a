#pragma once

// The series a page already holds, to drop duplicates (text format 0.0.4: a
// series is its sample name plus its label SET, so label order does not
// matter). Internal to opsdeck_metrics.

#include "metricpage.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace opsdeck::metrics::detail {

class SeriesIndex
{
public:
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

    /// When `samples` already holds `sample`'s series: the index of that
    /// sample. Otherwise records `sample` as `samples[newIndex]` and returns npos.
    /// Labels are compared by identity: every sample passed must take its
    /// labels from one LabelInterner (equal pairs are the same Label object).
    /// `newIndex` must stay below 2^32 - 1 (a page holds far fewer samples).
    /// A table holds at most 2^32 slots, all addressed by the 32-bit tag.
    std::size_t findOrAdd(const Sample &sample, const std::vector<Sample> &samples,
                          std::size_t newIndex);

private:
    // One small open-addressing table (linear probing, power-of-two size) of
    // label-set hash -> sample index per sample name. Per name, because a page
    // lists a name's series together, so the table being probed stays in
    // cache; one page-wide table (or a node-based map) missed the cache on
    // every sample and cost a third of the parse. A slot is 8 bytes (hash tag,
    // index), half of a 64-bit hash and index: less fresh memory to fault in
    // per page. Equal tags are compared label by label, so correctness never
    // depends on the hash.
    static constexpr std::uint32_t emptySlot = 0xFFFFFFFFu;
    struct Slot
    {
        std::uint32_t tag = 0;
        std::uint32_t index = emptySlot;
    };
    struct Table
    {
        std::vector<Slot> slots = std::vector<Slot>(8);
        std::size_t count = 0;
        void grow();
    };
    struct StringHash
    {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const
        {
            return std::hash<std::string_view>{}(s);
        }
    };

    Table &tableFor(std::string_view sampleName);

    std::unordered_map<std::string, Table, StringHash, std::equal_to<>> m_tables;
    // Consecutive samples mostly share a name: skip the map lookup then.
    std::string_view m_lastName; // a key of m_tables (its nodes are stable)
    std::string_view m_lastView; // the sample name last asked for, as passed
    Table *m_lastTable = nullptr;
};

} // namespace opsdeck::metrics::detail
