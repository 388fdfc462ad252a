#include "pagearena.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace opsdeck::metrics {

PageArena::PageArena(std::size_t blockBytes) : m_blockBytes(std::max<std::size_t>(blockBytes, 256))
{
}

std::byte *PageArena::allocate(std::size_t size, std::size_t alignment)
{
    // Align the cursor up; `alignment` is a power of two.
    const auto misalignment = reinterpret_cast<std::uintptr_t>(m_cursor) & (alignment - 1);
    const std::size_t padding = misalignment ? alignment - misalignment : 0;
    if (m_cursor && m_left >= size + padding) {
        std::byte *result = m_cursor + padding;
        m_cursor += padding + size;
        m_left -= padding + size;
        return result;
    }
    // new[] of std::byte leaves the bytes uninitialised and is aligned for any
    // fundamental type, so a fresh block needs no padding.
    if (size > m_blockBytes / 4) {
        m_blocks.emplace_back(new std::byte[size]);
        m_reservedBytes += size;
        return m_blocks.back().get();
    }
    m_blocks.emplace_back(new std::byte[m_blockBytes]);
    m_reservedBytes += m_blockBytes;
    m_cursor = m_blocks.back().get() + size;
    m_left = m_blockBytes - size;
    return m_blocks.back().get();
}

char *PageArena::allocateBytes(std::size_t size)
{
    return reinterpret_cast<char *>(allocate(size, 1));
}

std::string_view PageArena::copy(std::string_view bytes)
{
    if (bytes.empty())
        return {};
    char *target = allocateBytes(bytes.size());
    std::memcpy(target, bytes.data(), bytes.size());
    return {target, bytes.size()};
}

LabelList PageArena::copy(std::span<const Label *const> labels)
{
    if (labels.empty())
        return {};
    std::byte *target = allocate(labels.size_bytes(), alignof(const Label *));
    std::memcpy(target, labels.data(), labels.size_bytes());
    return LabelList({reinterpret_cast<const Label *const *>(target), labels.size()});
}

const Label *PageArena::store(const Label &label)
{
    std::byte *target = allocate(sizeof(Label), alignof(Label));
    std::memcpy(target, &label, sizeof(Label));
    return reinterpret_cast<const Label *>(target);
}

LabelList PageArena::copy(std::span<const Label> labels)
{
    if (labels.empty())
        return {};
    auto *pointers = reinterpret_cast<const Label **>(
        allocate(labels.size() * sizeof(const Label *), alignof(const Label *)));
    for (std::size_t i = 0; i < labels.size(); ++i)
        pointers[i] = store(labels[i]);
    return LabelList({pointers, labels.size()});
}

} // namespace opsdeck::metrics
