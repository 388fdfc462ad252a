// The connection-scoped fault of the incident (--fault reused-stall) at the
// proxy and at the router, and SSE pass-through across both hops.
#include "simhttp.h"
#include "simprocess.h"
#include "testsupport.h"

#include <chrono>
#include <gtest/gtest.h>

using namespace opsdeck::test;
using namespace std::chrono_literals;

namespace {

QString urlOf(const SimProcess &sim)
{
    return QStringLiteral("http://127.0.0.1:%1").arg(sim.port());
}

QStringList proxyArgs(const SimProcess &upstream, QStringList extra = {})
{
    return QStringList{QStringLiteral("--role"),     QStringLiteral("proxy"),
                       QStringLiteral("--port"),     QStringLiteral("0"),
                       QStringLiteral("--upstream"), urlOf(upstream)} +
           extra;
}

// Two chat completions on one kept-alive connection; returns both durations.
std::pair<double, double> twoOnOneConnection(int port)
{
    httplib::Client client("127.0.0.1", port);
    client.set_keep_alive(true);
    client.set_tcp_nodelay(true);
    client.set_read_timeout(std::chrono::seconds(30));
    double seconds[2] = {-1, -1};
    for (double &s : seconds) {
        const auto start = std::chrono::steady_clock::now();
        const auto res = client.Post("/v1/chat/completions", chatBody(2), "application/json");
        if (res && res->status == 200)
            s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    return {seconds[0], seconds[1]};
}

} // namespace

TEST(simProxy, ReusedConnectionStallsOnlyWithTheFault)
{
    SimProcess engine, faulty, clean;
    ASSERT_TRUE(
        engine.start({QStringLiteral("--role"), QStringLiteral("engine"), QStringLiteral("--port"),
                      QStringLiteral("0"), QStringLiteral("--ready-delay"), QStringLiteral("0")}));
    ASSERT_TRUE(faulty.start(
        proxyArgs(engine, {QStringLiteral("--fault"), QStringLiteral("reused-stall=2")})))
        << faulty.errorText().toStdString();
    ASSERT_TRUE(clean.start(proxyArgs(engine)));

    const auto [first, second] = twoOnOneConnection(faulty.port());
    EXPECT_GE(first, 0);
    EXPECT_LT(first, 1.0) << "the first request on a connection passes at once";
    EXPECT_GE(second, 2.0) << "the second request on the same connection stalls";
    EXPECT_LT(second, 4.0);
    const HttpReply fresh = httpPost(faulty.port(), "/v1/chat/completions", chatBody(2));
    EXPECT_EQ(fresh.status, 200);
    EXPECT_LT(fresh.seconds, 1.0) << "a fresh connection is fast";

    const auto [cleanFirst, cleanSecond] = twoOnOneConnection(clean.port());
    EXPECT_GE(cleanFirst, 0);
    EXPECT_LT(cleanFirst, 1.0);
    EXPECT_GE(cleanSecond, 0);
    EXPECT_LT(cleanSecond, 1.0) << "without the fault reuse is fast";
    // The engine behind saw every request: the proxy forwarded, not answered.
    EXPECT_EQ(metricValue(httpGet(engine.port(), "/metrics").body, "sglang:num_requests_total"),
              5.0);
}

TEST(simProxy, RouterTakesTheSameFaultAndStreamsPassThroughBothHops)
{
    SimProcess prefill, decode, router, proxy;
    for (SimProcess *engine : {&prefill, &decode}) {
        ASSERT_TRUE(engine->start(
            {QStringLiteral("--role"),
             engine == &prefill ? QStringLiteral("prefill") : QStringLiteral("decode"),
             QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("--ready-delay"),
             QStringLiteral("0")}));
    }
    ASSERT_TRUE(router.start(
        {QStringLiteral("--role"), QStringLiteral("router"), QStringLiteral("--port"),
         QStringLiteral("0"), QStringLiteral("--prefill"), urlOf(prefill),
         QStringLiteral("--decode"), urlOf(decode), QStringLiteral("--health-check-interval"),
         QStringLiteral("0.2"), QStringLiteral("--fault"), QStringLiteral("reused-stall=1")}))
        << router.errorText().toStdString();
    ASSERT_TRUE(proxy.start(proxyArgs(router)));
    ASSERT_TRUE(waitUntil([&] { return httpGet(router.port(), "/readiness").status == 200; }, 10s));

    // The stall sits at the router: reuse of a client connection to it stalls.
    const auto [first, second] = twoOnOneConnection(router.port());
    EXPECT_LT(first, 1.0);
    EXPECT_GE(second, 1.0);

    // Client -> proxy -> router -> prefill/decode, streamed: the first token
    // arrives long before the last (pass-through, not buffered).
    httplib::Client client("127.0.0.1", proxy.port());
    client.set_tcp_nodelay(true);
    client.set_read_timeout(std::chrono::seconds(30));
    httplib::Request req;
    req.method = "POST";
    req.path = "/v1/chat/completions";
    req.body = chatBody(60, true);
    req.set_header("Content-Type", "application/json");
    req.set_header("Authorization", "Bearer test-token");
    const auto start = std::chrono::steady_clock::now();
    double firstContentAt = -1;
    std::string body;
    req.content_receiver = [&](const char *data, size_t length, uint64_t, uint64_t) {
        body.append(data, length);
        if (firstContentAt < 0 && body.find("\"delta\":{\"content\":\"") != std::string::npos)
            firstContentAt =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return true;
    };
    httplib::Response res;
    httplib::Error error;
    ASSERT_TRUE(client.send(req, res, error)) << httplib::to_string(error);
    const double total =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(res.status, 200);
    EXPECT_EQ(body.substr(body.size() - 14), "data: [DONE]\n\n");
    // 60 tokens: 59 decode steps of 10.4 ms (~0.6 s); the first arrives after one prefill.
    EXPECT_GE(total, 0.55);
    EXPECT_GE(firstContentAt, 0);
    EXPECT_LT(firstContentAt, total / 3)
        << "first token at " << firstContentAt << " s of " << total;
}
