// Batch check against a decode engine: 16 concurrent chat completions run as
// one continuous batch, unless --max-running-requests 1 serializes them.
#include "simhttp.h"
#include "simprocess.h"
#include "testsupport.h"

#include <algorithm>
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

// Time of one request alone: the fastest of three, since noise on a shared
// machine only ever adds time.
double singleRequestSeconds(int port)
{
    double best = 1e9;
    for (int i = 0; i < 3; ++i) {
        const HttpReply reply = httpPost(port, "/v1/chat/completions", chatBody(kTokens));
        EXPECT_EQ(reply.status, 200) << reply.body;
        best = std::min(best, reply.seconds);
    }
    return best;
}

} // namespace

TEST(simBatch, SixteenConcurrentRequestsRunAsOneBatch)
{
    SimProcess decode;
    ASSERT_TRUE(decode.start(decodeArgs(QStringLiteral("64")))) << decode.errorText().toStdString();
    const double single = singleRequestSeconds(decode.port());

    const BatchRun run = runBatch(decode.port(), 16, kTokens, decode.port());
    std::printf("  single %.3f s, 16 batched %.3f s, peak running %d\n", single, run.wallS,
                run.peakRunning);
    EXPECT_EQ(run.ok, 16);
    EXPECT_GE(run.peakRunning, 12) << "decode running requests while the batch ran";
    // One batch: 31 steps of 16.4 ms instead of 16 x 31 steps of 10.4 ms.
    EXPECT_LT(run.wallS, 0.25 * 16 * single)
        << "batched wall " << run.wallS << " s vs single " << single << " s";
    EXPECT_GE(run.wallS, single) << "a batch is not faster than one request";
}

TEST(simBatch, AFullKvPoolKeepsRequestsWaiting)
{
    // Each request reserves prompt (1) + max_tokens (40) = 41 tokens of 100.
    SimProcess decode;
    ASSERT_TRUE(
        decode.start(decodeArgs(QStringLiteral("64")) +
                     QStringList{QStringLiteral("--max-total-tokens"), QStringLiteral("100")}))
        << decode.errorText().toStdString();
    const BatchRun run = runBatch(decode.port(), 3, 40, decode.port());
    EXPECT_EQ(run.ok, 3);
    EXPECT_EQ(run.peakRunning, 2) << "two fit the KV pool, the third waits";
    const std::string metrics = httpGet(decode.port(), "/metrics").body;
    EXPECT_EQ(metricValue(metrics, "sglang:max_total_num_tokens"), 100.0);
}

TEST(simBatch, MaxRunningRequestsOneSerializesTheBatch)
{
    SimProcess decode;
    ASSERT_TRUE(decode.start(decodeArgs(QStringLiteral("1")))) << decode.errorText().toStdString();
    const double single = singleRequestSeconds(decode.port());

    const BatchRun run = runBatch(decode.port(), 16, kTokens, decode.port());
    std::printf("  single %.3f s, 16 serialized %.3f s (%.3f x 16 singles), peak running %d\n",
                single, run.wallS, run.wallS / (16 * single), run.peakRunning);
    EXPECT_EQ(run.ok, 16);
    EXPECT_EQ(run.peakRunning, 1) << "never more than one running request";
    // Serialized: 16 single requests back to back, within 15 %.
    EXPECT_NEAR(run.wallS / (16 * single), 1.0, 0.15)
        << "serialized wall " << run.wallS << " s vs single " << single << " s";
}
