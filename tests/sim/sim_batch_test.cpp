// Batch check against a decode engine: 16 concurrent chat completions run as
// one continuous batch, unless --max-running-requests 1 serializes them.
#include "simhttp.h"
#include "simprocess.h"
#include "testsupport.h"

#include <cstdio>
#include <gtest/gtest.h>

using namespace opsdeck::test;

namespace {

constexpr int kTokens = 32;

QStringList decodeArgs(const QString &maxRunning)
{
    return {QStringLiteral("--role"),
            QStringLiteral("decode"),
            QStringLiteral("--port"),
            QStringLiteral("0"),
            QStringLiteral("--ready-delay"),
            QStringLiteral("0"),
            QStringLiteral("--max-running-requests"),
            maxRunning};
}

} // namespace

TEST(simBatch, SixteenConcurrentRequestsRunAsOneBatch)
{
    SimProcess decode;
    ASSERT_TRUE(decode.start(decodeArgs(QStringLiteral("64")))) << decode.errorText().toStdString();
    const HttpReply single = httpPost(decode.port(), "/v1/chat/completions", chatBody(kTokens));
    ASSERT_EQ(single.status, 200) << single.body;

    const BatchRun run = runBatch(decode.port(), 16, kTokens, decode.port());
    std::printf("  single %.3f s, 16 batched %.3f s, peak running %d\n", single.seconds, run.wallS,
                run.peakRunning);
    EXPECT_EQ(run.ok, 16);
    EXPECT_GE(run.peakRunning, 12) << "decode running requests while the batch ran";
    // One batch: 31 steps of 16.4 ms instead of 16 x 31 steps of 10.4 ms.
    EXPECT_LT(run.wallS, 0.25 * 16 * single.seconds)
        << "batched wall " << run.wallS << " s vs single " << single.seconds << " s";
    EXPECT_GE(run.wallS, single.seconds) << "a batch is not faster than one request";
}

TEST(simBatch, MaxRunningRequestsOneSerializesTheBatch)
{
    SimProcess decode;
    ASSERT_TRUE(decode.start(decodeArgs(QStringLiteral("1")))) << decode.errorText().toStdString();
    const HttpReply single = httpPost(decode.port(), "/v1/chat/completions", chatBody(kTokens));
    ASSERT_EQ(single.status, 200) << single.body;

    const BatchRun run = runBatch(decode.port(), 16, kTokens, decode.port());
    std::printf("  single %.3f s, 16 serialized %.3f s (%.3f x 16 singles), peak running %d\n",
                single.seconds, run.wallS, run.wallS / (16 * single.seconds), run.peakRunning);
    EXPECT_EQ(run.ok, 16);
    EXPECT_EQ(run.peakRunning, 1) << "never more than one running request";
    // Serialized: 16 single requests back to back, within 15 %.
    EXPECT_NEAR(run.wallS / (16 * single.seconds), 1.0, 0.15)
        << "serialized wall " << run.wallS << " s vs single " << single.seconds << " s";
}
