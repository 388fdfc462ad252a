#include "secretbytes.h"

#include <string.h> // explicit_bzero: a write the compiler may not drop as dead
#include <utility>

namespace opsdeck::secrets {

SecretBytes SecretBytes::copyOf(QByteArrayView bytes)
{
    SecretBytes result;
    // QByteArray(const char *, size) always allocates a buffer of its own.
    result.m_bytes = QByteArray(bytes.data(), bytes.size());
    return result;
}

SecretBytes SecretBytes::take(QByteArray &bytes)
{
    if (!bytes.isDetached())
        return copyOf(std::exchange(bytes, QByteArray()));
    SecretBytes result;
    result.m_bytes = std::exchange(bytes, QByteArray());
    return result;
}

SecretBytes::SecretBytes(SecretBytes &&other) noexcept
    : m_bytes(std::exchange(other.m_bytes, QByteArray()))
{
}

SecretBytes &SecretBytes::operator=(SecretBytes &&other) noexcept
{
    if (this != &other) {
        clear();
        m_bytes = std::exchange(other.m_bytes, QByteArray());
    }
    return *this;
}

SecretBytes::~SecretBytes()
{
    clear();
}

QByteArray SecretBytes::copy() const
{
    return QByteArray(m_bytes.constData(), m_bytes.size());
}

void SecretBytes::overwrite()
{
    // Never shared (see the class comment), so data() does not detach: the
    // zeros land on the secret's own bytes.
    if (!m_bytes.isEmpty())
        ::explicit_bzero(m_bytes.data(), static_cast<size_t>(m_bytes.size()));
}

void SecretBytes::clear()
{
    overwrite();
    m_bytes.clear();
}

} // namespace opsdeck::secrets
