// Decode throughput measured from the client side over HTTP against the
// documented step model (opsdeck-sim --help):
//   decode step_ms(batch) = (10 + 0.4 x batch) / (1 + gain(batch))
//   prefill step_ms(tokens) = 8 + 0.05 x tokens
// N concurrent requests of T tokens take one shared prefill step (the first
// token) and T - 1 decode steps, so tokens/s = N x T / wall with
//   wall = (T - 1) x step(N) + prefill(N x prompt tokens).
// Tolerance: measured/expected within 8 % (HTTP and thread wake-ups on a
// shared 2-core machine cost a few ms per run of 0.5 .. 1.5 s).
#include "simhttp.h"
#include "simprocess.h"
#include "testsupport.h"

#include <cstdio>
#include <gtest/gtest.h>

using namespace opsdeck::test;

namespace {

double gainWithCtas512(int batch)
{
    if (batch <= 16)
        return 0.0;
    if (batch <= 64)
        return 0.13 * (batch - 16) / 48.0;
    if (batch <= 96)
        return 0.13 - 0.07 * (batch - 64) / 32.0;
    return 0.06;
}

double expectedTokensPerS(int batch, int tokens, bool knob)
{
    const double step = (10.0 + 0.4 * batch) / (1.0 + (knob ? gainWithCtas512(batch) : 0.0));
    const double prefill = 8.0 + 0.05 * batch; // prompt "hi" is one token
    return batch * tokens / (((tokens - 1) * step + prefill) / 1000.0);
}

double measuredTokensPerS(int port, int batch, int tokens)
{
    const BatchRun run = runBatch(port, batch, tokens);
    EXPECT_EQ(run.ok, batch);
    return run.wallS > 0 ? batch * tokens / run.wallS : 0.0;
}

QStringList engineArgs()
{
    return {QStringLiteral("--role"),
            QStringLiteral("decode"),
            QStringLiteral("--port"),
            QStringLiteral("0"),
            QStringLiteral("--ready-delay"),
            QStringLiteral("0"),
            QStringLiteral("--max-running-requests"),
            QStringLiteral("96"),
            QStringLiteral("--log-interval"),
            QStringLiteral("60")};
}

QProcessEnvironment environment(bool knob)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("SGLANG_SM120_MMA_TARGET_CTAS"));
    if (knob)
        env.insert(QStringLiteral("SGLANG_SM120_MMA_TARGET_CTAS"), QStringLiteral("512"));
    return env;
}

} // namespace

TEST(simThroughput, DecodeThroughputFollowsTheStepFormula)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(engineArgs(), environment(false))) << sim.errorText().toStdString();
    double previous = 0;
    for (const auto &[batch, tokens] : {std::pair{1, 48}, {16, 48}, {64, 32}, {96, 32}}) {
        const double measured = measuredTokensPerS(sim.port(), batch, tokens);
        const double expected = expectedTokensPerS(batch, tokens, false);
        std::printf("  batch %2d x %d tokens: %7.1f tokens/s measured, %7.1f formula (%.3f)\n",
                    batch, tokens, measured, expected, measured / expected);
        EXPECT_NEAR(measured / expected, 1.0, 0.08)
            << "batch " << batch << ": measured " << measured << " tokens/s, formula " << expected;
        EXPECT_GT(measured, previous) << "throughput rises with concurrency";
        previous = measured;
    }
}

TEST(simThroughput, MmaTargetCtasKnobRaisesDecodeThroughputAtLargeBatches)
{
    SimProcess base;
    SimProcess tuned;
    ASSERT_TRUE(base.start(engineArgs(), environment(false))) << base.errorText().toStdString();
    ASSERT_TRUE(tuned.start(engineArgs(), environment(true))) << tuned.errorText().toStdString();
    EXPECT_TRUE(tuned.errorText().contains(QStringLiteral("SGLANG_SM120_MMA_TARGET_CTAS=512")))
        << "the knob is logged at start";

    struct Expectation
    {
        int batch;
        double gain;
        double tolerance;
    };
    for (const Expectation &e :
         {Expectation{16, 0.0, 0.03}, Expectation{64, 0.13, 0.03}, Expectation{96, 0.06, 0.03}}) {
        // 48 tokens: the fixed cost of a run (arrivals, prefill, answers) stays small.
        const double without = measuredTokensPerS(base.port(), e.batch, 48);
        const double with = measuredTokensPerS(tuned.port(), e.batch, 48);
        ASSERT_GT(without, 0);
        std::printf("  batch %2d: %7.1f -> %7.1f tokens/s with SGLANG_SM120_MMA_TARGET_CTAS=512 "
                    "(%+.1f %%, expected %+.1f %%)\n",
                    e.batch, without, with, 100 * (with / without - 1), 100 * e.gain);
        EXPECT_NEAR(with / without - 1.0, e.gain, e.tolerance)
            << "batch " << e.batch << ": " << without << " -> " << with << " tokens/s";
    }
}
