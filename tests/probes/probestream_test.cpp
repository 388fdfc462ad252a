// TTFT of a streamed chat probe against opsdeck-sim sending an empty first
// chunk, events split across reads and a held-back first token.
#include "probeengine.h"
#include "probetestsupport.h"
#include "simprocess.h"

#include <gtest/gtest.h>

using namespace opsdeck::probes;
using namespace opsdeck::test;

TEST(ProbeStream, TtftIsTheFirstContentTokenNotTheFirstByteOrAnEmptyChunk)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(simArgs(
        QStringLiteral("engine"),
        {QStringLiteral("--stream-empty-first-chunk"), QStringLiteral("--stream-split-events"),
         QStringLiteral("--first-token-delay-ms"), QStringLiteral("400")})))
        << sim.errorText().toStdString();
    ProbeEngine engine;
    const ProbeResult r =
        engine.run(chatProbe(sim.url(), ProbeKind::ChatStream, ConnectionMode::Fresh));
    ASSERT_TRUE(r.ok()) << r.error.toStdString();
    EXPECT_TRUE(r.body.contains("data: [DONE]")); // "stream": true was added to the body
    EXPECT_TRUE(r.body.contains(R"("delta":{"content":""})"));
    // The role and empty chunks arrive within ~40 ms of the first byte; the
    // first token only after the 400 ms hold.
    EXPECT_GE(r.ttftMs, r.ttfbMs + 390) << "ttfb " << r.ttfbMs << " ttft " << r.ttftMs;
    // ... and it is the first token, not the end: 7 more split events follow.
    EXPECT_LT(r.ttftMs, r.totalMs - 100) << "ttft " << r.ttftMs << " total " << r.totalMs;

    const ProbeResult whole =
        engine.run(chatProbe(sim.url(), ProbeKind::Chat, ConnectionMode::Fresh));
    ASSERT_TRUE(whole.ok()) << whole.error.toStdString();
    EXPECT_EQ(whole.ttftMs, -1);
    EXPECT_TRUE(whole.body.contains("chat.completion"));
}
