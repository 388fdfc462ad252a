#include "outputcoalescer.h"

namespace opsdeck::remote {

OutputCoalescer::OutputCoalescer(Sink sink, std::chrono::milliseconds interval, qint64 maxBytes)
    : m_sink(std::move(sink)), m_interval(interval), m_maxBytes(maxBytes)
{
}

void OutputCoalescer::append(OutputChannel channel, const char *data, qint64 size,
                             Clock::time_point now)
{
    if (size <= 0)
        return;
    if (m_pending.isEmpty())
        m_oldest = now;
    if (m_pending.isEmpty() || m_pending.last().channel != channel)
        m_pending.append({channel, {}});
    m_pending.last().bytes.append(data, size);
    m_pendingBytes += size;
    if (m_pendingBytes >= m_maxBytes)
        flush();
}

void OutputCoalescer::flushIfDue(Clock::time_point now)
{
    if (!m_pending.isEmpty() && now - m_oldest >= m_interval)
        flush();
}

void OutputCoalescer::flush()
{
    // Taken first: the sink may not see a half-cleared state.
    const QList<Piece> pieces = std::exchange(m_pending, {});
    m_pendingBytes = 0;
    if (!m_sink)
        return;
    for (const Piece &piece : pieces)
        m_sink(piece.channel, piece.bytes);
}

qint64 OutputCoalescer::msUntilDue(Clock::time_point now) const
{
    if (m_pending.isEmpty())
        return -1;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(m_oldest + m_interval - now);
    return std::max<qint64>(0, left.count());
}

} // namespace opsdeck::remote
