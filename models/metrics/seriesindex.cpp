#include "seriesindex.h"

#include "hashmix.h"
#include "textutil.h"

#include <algorithm>

namespace opsdeck::metrics::detail {

namespace {

// Order-insensitive hash of the label set (the name is the table's key). The
// labels are interned, so their addresses identify them: no bytes to hash.
std::uint64_t labelSetHash(const Sample &sample)
{
    std::uint64_t labels = sample.labels.size();
    for (const Label *l : sample.labels.pointers())
        labels += mixHash(reinterpret_cast<std::uintptr_t>(l));
    return mixHash(labels);
}

// A label set is a set: {a,b} and {b,a} are one series. Interned labels: equal
// pairs are the same object.
bool sameSeries(const Sample &a, const Sample &b)
{
    if (a.labels.size() != b.labels.size() || !sameBytes(a.name, b.name))
        return false;
    const auto theirs = b.labels.pointers();
    for (const Label *l : a.labels.pointers()) {
        if (std::find(theirs.begin(), theirs.end(), l) == theirs.end())
            return false;
    }
    return true;
}

// The slot and the tag both come from these 32 bits, so growing a table needs
// only its slots (rehashing from the samples missed the cache on each one and
// cost 15 % of the parse).
std::uint32_t tagOf(std::uint64_t hash)
{
    return static_cast<std::uint32_t>(hash ^ (hash >> 32));
}

} // namespace

std::size_t SeriesIndex::findOrAdd(const Sample &sample, const std::vector<Sample> &samples,
                                   std::size_t newIndex)
{
    Table &table = tableFor(sample.name);
    if (2 * (table.count + 1) > table.slots.size())
        table.grow();
    const std::uint32_t tag = tagOf(labelSetHash(sample));
    const std::size_t mask = table.slots.size() - 1;
    for (std::size_t slot = tag & mask;; slot = (slot + 1) & mask) {
        Slot &entry = table.slots[slot];
        if (entry.index == emptySlot) {
            entry = {tag, static_cast<std::uint32_t>(newIndex)};
            ++table.count;
            return npos;
        }
        if (entry.tag == tag && sameSeries(samples[entry.index], sample))
            return entry.index;
    }
}

SeriesIndex::Table &SeriesIndex::tableFor(std::string_view sampleName)
{
    // The same view as last time (the parser hands consecutive samples of one
    // name the same bytes) needs no compare at all.
    if (m_lastTable && sampleName.data() == m_lastView.data() &&
        sampleName.size() == m_lastView.size())
        return *m_lastTable;
    m_lastView = sampleName;
    if (m_lastTable && sameBytes(m_lastName, sampleName))
        return *m_lastTable;
    auto it = m_tables.find(sampleName);
    if (it == m_tables.end())
        it = m_tables.emplace(std::string(sampleName), Table()).first;
    m_lastName = it->first;
    m_lastTable = &it->second;
    return it->second;
}

void SeriesIndex::Table::grow()
{
    std::vector<Slot> old(slots.size() * 2);
    old.swap(slots);
    const std::size_t mask = slots.size() - 1;
    for (const Slot &entry : old) {
        if (entry.index == emptySlot)
            continue;
        std::size_t slot = entry.tag & mask;
        while (slots[slot].index != emptySlot)
            slot = (slot + 1) & mask;
        slots[slot] = entry;
    }
}

} // namespace opsdeck::metrics::detail
