// OutputCoalescer: the batching of streamed command output in the SSH
// session thread (outputcoalescer.h), with the time passed in, so no sleeps.
#include "outputcoalescer.h"

#include <gtest/gtest.h>

using namespace std::chrono_literals;
using opsdeck::remote::OutputChannel;
using opsdeck::remote::OutputCoalescer;

namespace {

struct Chunk
{
    OutputChannel channel;
    QByteArray bytes;
    bool operator==(const Chunk &) const = default;
};

struct Recorder
{
    QList<Chunk> chunks;
    OutputCoalescer::Sink sink()
    {
        return [this](OutputChannel channel, const QByteArray &bytes) {
            chunks.append({channel, bytes});
        };
    }
};

constexpr auto out = OutputChannel::StandardOutput;
constexpr auto err = OutputChannel::StandardError;

} // namespace

TEST(OutputCoalescer, HoldsSmallPiecesUntilTheOldestHasWaitedTheInterval)
{
    Recorder recorder;
    OutputCoalescer coalescer(recorder.sink(), 50ms, 1000);
    const auto t0 = OutputCoalescer::Clock::now();
    coalescer.append(out, "ab", 2, t0);
    coalescer.append(out, "cd", 2, t0 + 30ms);
    EXPECT_EQ(coalescer.msUntilDue(t0 + 30ms), 20);
    coalescer.flushIfDue(t0 + 49ms);
    EXPECT_TRUE(recorder.chunks.isEmpty());
    coalescer.flushIfDue(t0 + 50ms);
    ASSERT_EQ(recorder.chunks.size(), 1);
    EXPECT_EQ(recorder.chunks[0], (Chunk{out, "abcd"}));
    EXPECT_EQ(coalescer.msUntilDue(t0 + 60ms), -1);
    EXPECT_EQ(coalescer.pendingBytes(), 0);
}

TEST(OutputCoalescer, HandsOnAtOnceWhenMaxBytesArePending)
{
    Recorder recorder;
    OutputCoalescer coalescer(recorder.sink(), 50ms, 8);
    const auto t0 = OutputCoalescer::Clock::now();
    coalescer.append(out, "1234567", 7, t0);
    EXPECT_TRUE(recorder.chunks.isEmpty());
    coalescer.append(out, "89", 2, t0);
    ASSERT_EQ(recorder.chunks.size(), 1);
    EXPECT_EQ(recorder.chunks[0], (Chunk{out, "123456789"}));
    EXPECT_EQ(coalescer.pendingBytes(), 0);
}

TEST(OutputCoalescer, KeepsTheOrderAcrossChannelsAndNeverGivesEmptyChunks)
{
    Recorder recorder;
    OutputCoalescer coalescer(recorder.sink(), 50ms, 1000);
    const auto t0 = OutputCoalescer::Clock::now();
    coalescer.append(out, "a", 1, t0);
    coalescer.append(out, "b", 1, t0);
    coalescer.append(err, "\xff", 1, t0);
    coalescer.append(err, "", 0, t0);
    coalescer.append(out, "\0c", 2, t0);
    coalescer.flush();
    coalescer.flush(); // nothing pending: nothing handed on
    const QList<Chunk> expected = {
        {out, "ab"}, {err, QByteArray("\xff", 1)}, {out, QByteArray("\0c", 2)}};
    EXPECT_EQ(recorder.chunks, expected);
}

TEST(OutputCoalescer, TheIntervalCountsFromTheFirstPendingByteAfterAHandOver)
{
    Recorder recorder;
    OutputCoalescer coalescer(recorder.sink(), 50ms, 1000);
    const auto t0 = OutputCoalescer::Clock::now();
    coalescer.append(out, "a", 1, t0);
    coalescer.flushIfDue(t0 + 50ms);
    coalescer.append(out, "b", 1, t0 + 90ms);
    coalescer.flushIfDue(t0 + 100ms); // "b" waited 10 ms only
    EXPECT_EQ(recorder.chunks.size(), 1);
    coalescer.flushIfDue(t0 + 140ms);
    EXPECT_EQ(recorder.chunks.size(), 2);
}
