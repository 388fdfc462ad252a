#pragma once

#include <QByteArray>
#include <QByteArrayView>

namespace opsdeck::secrets {

/// A secret's bytes with exactly one owner, zeroed in place (explicit_bzero)
/// when cleared, replaced or destroyed (issue 5: "cleared from memory after
/// use").
///
/// Why not a plain QByteArray: QByteArray is implicitly shared, so `b = a`
/// makes two owners of one buffer, and writing zeros through data() then
/// detaches and zeroes a fresh copy while the secret stays in the shared one.
/// This holder never shares its buffer: it is move-only, takes a buffer only
/// when it holds the only reference, and deep-copies otherwise. So zeroing
/// always hits the bytes themselves.
///
/// Out of reach (documented, not handled): copies that libraries make on
/// their own (QtKeychain's job and D-Bus buffers, Qt's line edit undo steps).
///
/// Thread: one thread at a time, like a QByteArray; movable between threads.
class SecretBytes
{
public:
    SecretBytes() = default;
    /// A private copy of `bytes`; the caller still owns (and wipes) its buffer.
    static SecretBytes copyOf(QByteArrayView bytes);
    /// Takes `bytes` and leaves it empty: moved in, without a copy, when it
    /// held the only reference; else deep-copied and the reference dropped
    /// (the buffer's other owners wipe it when they are done).
    static SecretBytes take(QByteArray &bytes);

    SecretBytes(SecretBytes &&other) noexcept;
    SecretBytes &operator=(SecretBytes &&other) noexcept;
    SecretBytes(const SecretBytes &) = delete;
    SecretBytes &operator=(const SecretBytes &) = delete;
    ~SecretBytes();

    /// The secret; valid until the holder is cleared, moved from or destroyed.
    QByteArrayView view() const { return m_bytes; }
    const char *constData() const { return m_bytes.constData(); }
    qsizetype size() const { return m_bytes.size(); }
    bool isEmpty() const { return m_bytes.isEmpty(); }
    /// A deep copy for an API that wants a QByteArray; whoever receives it
    /// owns it alone and wipes it (SecretStore::wipe).
    QByteArray copy() const;

    /// Zeroes the bytes in place and keeps the size (the memory stays owned,
    /// so tests can check it); clear() does this first.
    void overwrite();
    /// Zeroes, then frees the buffer.
    void clear();

private:
    QByteArray m_bytes; ///< never shared with another QByteArray
};

} // namespace opsdeck::secrets
