#pragma once

// A label pair and the list of them one Sample carries (metricpage.h). Plain
// C++20, no Qt. Thread-safety: both are read-only views; read from any thread
// as long as what they point to lives.

#include <compare>
#include <cstddef>
#include <iterator>
#include <span>
#include <string_view>

namespace opsdeck::metrics {

/// One label pair, exactly as on the page after unescaping (`\\`, `\"`, `\n`).
/// Values are valid UTF-8, kept byte-exact (no normalisation). Both are views
/// into the page's storage (see metricpage.h for their lifetime).
struct Label
{
    std::string_view name;
    std::string_view value;
};

/// The labels of one sample, in page order, as a read-only list of Label
/// references: `for (const Label &l : sample.labels)`, `labels[i]`, size(),
/// front(), back(). It holds pointers, not Labels: a parsed page keeps each
/// distinct name/value pair once and every sample points at it, so the labels
/// of a 10 MB page take 8 bytes each instead of 32 (fewer pages to fault in,
/// which was a quarter of the parse time). Within one parsed page, two labels
/// with the same name and value are the same object (parse-time identity; a
/// hand-built page need not keep that).
///
/// Lifetime: a view; the pointer array and the Labels live in the page's
/// storage (PageArena::copy makes one from Labels).
class LabelList
{
public:
    class const_iterator
    {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = Label;
        using difference_type = std::ptrdiff_t;
        using pointer = const Label *;
        using reference = const Label &;

        const_iterator() = default;
        explicit const_iterator(const Label *const *at) : m_at(at) {}

        reference operator*() const { return **m_at; }
        pointer operator->() const { return *m_at; }
        reference operator[](difference_type n) const { return *m_at[n]; }
        const_iterator &operator++() { return ++m_at, *this; }
        const_iterator operator++(int) { return const_iterator(m_at++); }
        const_iterator &operator--() { return --m_at, *this; }
        const_iterator operator--(int) { return const_iterator(m_at--); }
        const_iterator &operator+=(difference_type n) { return m_at += n, *this; }
        const_iterator &operator-=(difference_type n) { return m_at -= n, *this; }
        friend const_iterator operator+(const_iterator i, difference_type n) { return i += n; }
        friend const_iterator operator+(difference_type n, const_iterator i) { return i += n; }
        friend const_iterator operator-(const_iterator i, difference_type n) { return i -= n; }
        friend difference_type operator-(const_iterator a, const_iterator b)
        {
            return a.m_at - b.m_at;
        }
        friend bool operator==(const_iterator a, const_iterator b) = default;
        friend auto operator<=>(const_iterator a, const_iterator b) = default;

    private:
        const Label *const *m_at = nullptr;
    };
    using iterator = const_iterator;
    using value_type = Label;
    using size_type = std::size_t;

    LabelList() = default;
    /// A view of `labels` (the array and the Labels must outlive the list).
    explicit LabelList(std::span<const Label *const> labels)
        : m_labels(labels.data()), m_size(labels.size())
    {
    }

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const Label &operator[](std::size_t i) const { return *m_labels[i]; }
    const Label &front() const { return *m_labels[0]; }
    const Label &back() const { return *m_labels[m_size - 1]; }
    const_iterator begin() const { return const_iterator(m_labels); }
    const_iterator end() const { return const_iterator(m_labels + m_size); }
    /// The pointer array itself (identity of labels within one parsed page).
    std::span<const Label *const> pointers() const { return {m_labels, m_size}; }

private:
    const Label *const *m_labels = nullptr;
    std::size_t m_size = 0;
};

} // namespace opsdeck::metrics
