#pragma once

// Keeps each distinct label pair of a page once, in the page's arena, so that
// samples point at shared Labels (labellist.h) and two labels of the page are
// equal exactly when they are the same object: the series index then hashes
// and compares pointers, not bytes. Label names are kept once too, so a pair is
// found by its name's address and its value's bytes. Internal to
// opsdeck_metrics; one instance per parse, one thread.

#include "metricpage.h"
#include "pagearena.h"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace opsdeck::metrics::detail {

class LabelInterner
{
public:
    explicit LabelInterner(PageArena &arena);

    /// The page's one copy of this label name (its bytes are copied into the
    /// arena the first time, so `bytes` may be a view into the page text).
    std::string_view name(std::string_view bytes);
    /// The page's one Label with this name and value. `name` must come from
    /// name() (or be the name of a Label this returned); `value` is copied
    /// into the arena the first time.
    const Label *intern(std::string_view name, std::string_view value);

private:
    // Open addressing, linear probing, power-of-two size, at most half full.
    // A page has few distinct pairs (a label value per replica or bucket), so
    // the tables stay in cache.
    struct Slot
    {
        std::uint64_t hash = 0;
        const Label *label = nullptr;
    };
    struct NameSlot
    {
        std::uint64_t hash = 0;
        std::string_view name;
    };
    void grow();
    void growNames();

    PageArena &m_arena;
    std::vector<Slot> m_slots = std::vector<Slot>(256);
    std::size_t m_count = 0;
    std::vector<NameSlot> m_names = std::vector<NameSlot>(64);
    std::size_t m_nameCount = 0;
};

} // namespace opsdeck::metrics::detail
