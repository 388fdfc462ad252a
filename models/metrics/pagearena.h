#pragma once

// The memory a parsed MetricPage's views point into: sample names, label names
// and values, the Label pairs (each distinct pair once) and the label list of
// every sample. One arena per page instead of a std::string per name and value
// and a std::vector per sample: those allocations (and their frees) were a
// third of the parse time on a 10 MB page (perf, tests/bench/bench_parse.cpp).
//
// Blocks are never moved or freed before the arena, so a view handed out stays
// valid as long as the arena lives. MetricPage holds it by shared_ptr, so
// copies of a page share one arena.
//
// Thread-safety: filled by one thread (the parser); read-only afterwards, and
// then safe to read from any number of threads.

#include "metricpage.h"

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

namespace opsdeck::metrics {

class PageArena
{
public:
    /// 64 KiB: large next to a label value, small next to a large page.
    static constexpr std::size_t defaultBlockBytes = 64 * 1024;

    /// `blockBytes` (at least 256): the size of each block taken from the heap.
    /// A small page's arena takes small blocks: each block is a heap
    /// allocation that glibc serves by first consolidating its free lists, and
    /// a page kept for a while keeps its blocks.
    explicit PageArena(std::size_t blockBytes = defaultBlockBytes);
    PageArena(const PageArena &) = delete;
    PageArena &operator=(const PageArena &) = delete;

    /// A copy of `bytes` that lives as long as the arena.
    std::string_view copy(std::string_view bytes);
    /// `size` uninitialised bytes that live as long as the arena (for text the
    /// caller builds in place, such as an unescaped label value).
    char *allocateBytes(std::size_t size);
    /// A copy of `labels` that lives as long as the arena, as a LabelList (the
    /// views inside are copied as they are, not their bytes).
    LabelList copy(std::span<const Label> labels);
    /// A copy of the pointer array `labels` (not of the Labels it points to,
    /// which must live as long as the arena) that lives as long as the arena.
    LabelList copy(std::span<const Label *const> labels);
    /// A copy of `label` (not of its bytes) that lives as long as the arena.
    const Label *store(const Label &label);

    /// Bytes the arena has taken from the heap so far (blocks, not what is used).
    std::size_t reservedBytes() const { return m_reservedBytes; }

private:
    // Label holds two string_views: no destructor to run, so a block is raw
    // memory and copying into it needs no construction first.
    static_assert(std::is_trivially_copyable_v<Label> && std::is_trivially_destructible_v<Label>);

    std::byte *allocate(std::size_t size, std::size_t alignment);

    /// A request over a quarter of it gets a block of its own, so little is left unused.
    std::size_t m_blockBytes;
    std::vector<std::unique_ptr<std::byte[]>> m_blocks;
    std::byte *m_cursor = nullptr;
    std::size_t m_left = 0;
    std::size_t m_reservedBytes = 0;
};

} // namespace opsdeck::metrics
