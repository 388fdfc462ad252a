#pragma once

#include "outputchannel.h"

#include <QByteArray>
#include <QList>
#include <chrono>
#include <functional>

namespace opsdeck::remote {

/// Gathers the streamed output of one command in the SSH session thread and
/// hands it on in batches, so that a command printing 50 MB in 32 KiB
/// packets does not post hundreds of thousands of queued calls to the
/// transport's thread (DESIGN.md: the GUI gets compact, rate-limited updates).
/// Pending bytes go to the sink when `maxBytes` are pending (at once, inside
/// append()), when the oldest pending byte has waited `interval`
/// (flushIfDue()), or on flush() at the end of the command. Bytes keep their
/// order; neighbouring bytes of one channel become one chunk, so a flush
/// gives at most one chunk per change of channel. Never gives an empty chunk.
/// Time is passed in (steady clock) so tests need no sleeps.
/// Thread: the one that calls it; the sink runs in that thread.
class OutputCoalescer
{
public:
    using Clock = std::chrono::steady_clock;
    using Sink = std::function<void(OutputChannel channel, const QByteArray &chunk)>;

    /// 50 ms: well under what a reader of a live log notices, and at most 20
    /// queued calls a second per command. 64 KiB: two libssh reads; a fast
    /// stream is handed on in pieces of this size.
    static constexpr std::chrono::milliseconds defaultInterval{50};
    static constexpr qint64 defaultMaxBytes = 64 * 1024;

    explicit OutputCoalescer(Sink sink, std::chrono::milliseconds interval = defaultInterval,
                             qint64 maxBytes = defaultMaxBytes);

    void append(OutputChannel channel, const char *data, qint64 size, Clock::time_point now);
    /// Hands on what is pending when its oldest byte has waited `interval`.
    void flushIfDue(Clock::time_point now);
    /// Hands on everything pending.
    void flush();
    /// How long until flushIfDue() would hand something on (0: due now); -1
    /// when nothing is pending. For the poll timeout of the session thread, ms.
    qint64 msUntilDue(Clock::time_point now) const;
    qint64 pendingBytes() const { return m_pendingBytes; }

private:
    struct Piece
    {
        OutputChannel channel;
        QByteArray bytes;
    };

    Sink m_sink;
    std::chrono::milliseconds m_interval;
    qint64 m_maxBytes;
    QList<Piece> m_pending;
    qint64 m_pendingBytes = 0;
    Clock::time_point m_oldest; ///< when the oldest pending byte came
};

} // namespace opsdeck::remote
