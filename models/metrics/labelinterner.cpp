#include "labelinterner.h"

#include "textutil.h"

namespace opsdeck::metrics::detail {

namespace {

// Hash of a pair: the name's address (names are kept once) and the value's bytes.
std::uint64_t pairHash(std::string_view name, std::string_view value)
{
    std::uint64_t x = reinterpret_cast<std::uintptr_t>(name.data()) * 0x9e3779b97f4a7c15ULL;
    return (x ^ (x >> 32)) ^ hashBytes(value);
}

} // namespace

LabelInterner::LabelInterner(PageArena &arena) : m_arena(arena) {}

std::string_view LabelInterner::name(std::string_view bytes)
{
    if (2 * (m_nameCount + 1) > m_names.size())
        growNames();
    const std::uint64_t hash = hashBytes(bytes);
    const std::size_t mask = m_names.size() - 1;
    for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
        NameSlot &entry = m_names[slot];
        if (entry.name.data() == nullptr) {
            // A copy even when empty-looking: names are never empty, and the
            // non-null address is what tells used slots and names apart.
            entry = {hash, m_arena.copy(bytes)};
            ++m_nameCount;
            return entry.name;
        }
        if (entry.hash == hash && sameBytes(entry.name, bytes))
            return entry.name;
    }
}

const Label *LabelInterner::intern(std::string_view name, std::string_view value)
{
    if (2 * (m_count + 1) > m_slots.size())
        grow();
    const std::uint64_t hash = pairHash(name, value);
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
        Slot &entry = m_slots[slot];
        if (!entry.label) {
            entry = {hash, m_arena.store({name, m_arena.copy(value)})};
            ++m_count;
            return entry.label;
        }
        if (entry.hash == hash && entry.label->name.data() == name.data() &&
            sameBytes(entry.label->value, value))
            return entry.label;
    }
}

void LabelInterner::grow()
{
    std::vector<Slot> old(m_slots.size() * 2);
    old.swap(m_slots);
    const std::size_t mask = m_slots.size() - 1;
    for (const Slot &entry : old) {
        if (!entry.label)
            continue;
        std::size_t slot = entry.hash & mask;
        while (m_slots[slot].label)
            slot = (slot + 1) & mask;
        m_slots[slot] = entry;
    }
}

void LabelInterner::growNames()
{
    std::vector<NameSlot> old(m_names.size() * 2);
    old.swap(m_names);
    const std::size_t mask = m_names.size() - 1;
    for (const NameSlot &entry : old) {
        if (entry.name.data() == nullptr)
            continue;
        std::size_t slot = entry.hash & mask;
        while (m_names[slot].name.data() != nullptr)
            slot = (slot + 1) & mask;
        m_names[slot] = entry;
    }
}

} // namespace opsdeck::metrics::detail
