#include "seriesindex.h"

#include <algorithm>

namespace opsdeck::metrics::detail {

namespace {

std::uint64_t mix(std::uint64_t x)
{
    // splitmix64 finaliser: spreads the bits so that summing per-label hashes
    // (order-insensitive) does not cancel out.
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// Order-insensitive hash of the label set (the name is the table's key).
std::uint64_t labelSetHash(const Sample &sample)
{
    const std::hash<std::string_view> hash;
    std::uint64_t labels = sample.labels.size();
    for (const Label &l : sample.labels)
        labels += mix(hash(l.name) ^ (hash(l.value) * 0x9e3779b97f4a7c15ULL));
    return mix(labels);
}

// A label set is a set: {a,b} and {b,a} are one series.
bool sameSeries(const Sample &a, const Sample &b)
{
    if (a.name != b.name || a.labels.size() != b.labels.size())
        return false;
    for (const Label &l : a.labels) {
        const auto it = std::find_if(b.labels.begin(), b.labels.end(),
                                     [&](const Label &o) { return o.name == l.name; });
        if (it == b.labels.end() || it->value != l.value)
            return false;
    }
    return true;
}

} // namespace

std::size_t SeriesIndex::findOrAdd(const Sample &sample, const std::vector<Sample> &samples,
                                   std::size_t newIndex)
{
    Table &table = tableFor(sample.name);
    if (2 * (table.count + 1) > table.slots.size())
        table.grow();
    const std::uint64_t hash = labelSetHash(sample);
    const std::size_t mask = table.slots.size() - 1;
    for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
        Slot &entry = table.slots[slot];
        if (entry.index == npos) {
            entry = {hash, newIndex};
            ++table.count;
            return npos;
        }
        if (entry.hash == hash && sameSeries(samples[entry.index], sample))
            return entry.index;
    }
}

SeriesIndex::Table &SeriesIndex::tableFor(const std::string &sampleName)
{
    if (m_lastName && *m_lastName == sampleName)
        return *m_lastTable;
    auto it = m_tables.find(sampleName);
    if (it == m_tables.end())
        it = m_tables.emplace(sampleName, Table()).first;
    m_lastName = &it->first;
    m_lastTable = &it->second;
    return it->second;
}

void SeriesIndex::Table::grow()
{
    std::vector<Slot> old(slots.size() * 2);
    old.swap(slots);
    const std::size_t mask = slots.size() - 1;
    for (const Slot &entry : old) {
        if (entry.index == npos)
            continue;
        std::size_t slot = entry.hash & mask;
        while (slots[slot].index != npos)
            slot = (slot + 1) & mask;
        slots[slot] = entry;
    }
}

} // namespace opsdeck::metrics::detail
