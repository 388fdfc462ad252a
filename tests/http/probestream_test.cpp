// TTFT of a streamed chat probe against opsdeck-sim sending an empty first
// chunk, events split across reads and a held-back first token.
#include "probeengine.h"
#include "probetestsupport.h"
#include "simprocess.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <thread>

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

// A 200 whose stream carries only a role chunk and [DONE] served no token:
// not ok(), with the reason (the sim's streams, with tokens, pass above).
TEST(ProbeStream, AStreamWithoutAContentTokenIsAFailure)
{
    httplib::Server server;
    server.Post("/v1/chat/completions", [](const httplib::Request &, httplib::Response &res) {
        res.set_content(
            "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}"
            "\n\ndata: [DONE]\n\n",
            "text/event-stream");
    });
    const int port = server.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port, 0);
    std::thread serving([&server] { server.listen_after_bind(); });
    ProbeEngine engine;
    const ProbeResult empty = engine.run(chatProbe(QStringLiteral("http://127.0.0.1:%1").arg(port),
                                                   ProbeKind::ChatStream, ConnectionMode::Fresh));
    server.stop();
    serving.join();
    EXPECT_EQ(empty.status, 200);
    EXPECT_FALSE(empty.ok());
    EXPECT_EQ(empty.ttftMs, -1);
    EXPECT_EQ(empty.error, QStringLiteral("the stream ended without a content token"));
}
