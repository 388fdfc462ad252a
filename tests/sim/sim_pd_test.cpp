// A PD cluster of sims: prefill + decode behind the router.
#include "simhttp.h"
#include "simprocess.h"
#include "testsupport.h"

#include <QJsonArray>
#include <gtest/gtest.h>

using namespace opsdeck::test;
using namespace std::chrono_literals;

namespace {

QStringList engine(const QString &role, const QString &readyDelay, QStringList extra = {})
{
    return QStringList{QStringLiteral("--role"),        role,
                       QStringLiteral("--port"),        QStringLiteral("0"),
                       QStringLiteral("--ready-delay"), readyDelay} +
           extra;
}

QString urlOf(const SimProcess &sim)
{
    return QStringLiteral("http://127.0.0.1:%1").arg(sim.port());
}

QStringList routerArgs(const SimProcess &prefill, const SimProcess &decode, QStringList extra = {})
{
    return QStringList{QStringLiteral("--role"),
                       QStringLiteral("router"),
                       QStringLiteral("--port"),
                       QStringLiteral("0"),
                       QStringLiteral("--prefill"),
                       urlOf(prefill),
                       QStringLiteral("--decode"),
                       urlOf(decode),
                       QStringLiteral("--health-check-interval"),
                       QStringLiteral("0.2")} +
           extra;
}

QJsonObject workerOfType(const QJsonObject &workers, const QString &type)
{
    for (const auto &value : workers.value(QStringLiteral("workers")).toArray()) {
        if (value.toObject().value(QStringLiteral("worker_type")).toString() == type)
            return value.toObject();
    }
    return {};
}

} // namespace

TEST(simPd, RouterIsReadyOnlyWhenAPrefillAndADecodeAreHealthy)
{
    SimProcess prefill, decode, router;
    ASSERT_TRUE(prefill.start(engine(QStringLiteral("prefill"), QStringLiteral("0.8"))));
    ASSERT_TRUE(decode.start(engine(QStringLiteral("decode"), QStringLiteral("2.0"))));
    ASSERT_TRUE(router.start(routerArgs(prefill, decode))) << router.errorText().toStdString();
    EXPECT_GT(router.sidePort(QStringLiteral("metrics")), 0);

    EXPECT_EQ(httpGet(router.port(), "/health").status, 200)
        << "liveness does not wait for workers";
    EXPECT_EQ(httpGet(router.port(), "/readiness").status, 503);

    // The prefill turns healthy first: still not ready without a decode.
    ASSERT_TRUE(waitUntil(
        [&] {
            const QJsonObject workers = jsonObject(httpGet(router.port(), "/workers").body);
            return workerOfType(workers, QStringLiteral("prefill"))
                .value(QStringLiteral("is_healthy"))
                .toBool();
        },
        10s));
    const QJsonObject halfway = jsonObject(httpGet(router.port(), "/workers").body);
    if (!workerOfType(halfway, QStringLiteral("decode"))
             .value(QStringLiteral("is_healthy"))
             .toBool()) {
        EXPECT_EQ(httpGet(router.port(), "/readiness").status, 503);
    }

    ASSERT_TRUE(waitUntil([&] { return httpGet(router.port(), "/readiness").status == 200; }, 10s));
    const QJsonObject workers = jsonObject(httpGet(router.port(), "/workers").body);
    EXPECT_EQ(workers.value(QStringLiteral("total")).toInt(), 2);
    const QJsonObject p = workerOfType(workers, QStringLiteral("prefill"));
    const QJsonObject d = workerOfType(workers, QStringLiteral("decode"));
    EXPECT_EQ(p.value(QStringLiteral("url")).toString(), urlOf(prefill));
    EXPECT_EQ(d.value(QStringLiteral("url")).toString(), urlOf(decode));
    EXPECT_TRUE(p.value(QStringLiteral("is_healthy")).toBool());
    EXPECT_TRUE(d.value(QStringLiteral("is_healthy")).toBool());
    const int bootstrapPort = jsonObject(httpGet(prefill.port(), "/server_info").body)
                                  .value(QStringLiteral("disaggregation_bootstrap_port"))
                                  .toInt();
    EXPECT_GT(bootstrapPort, 0);
    EXPECT_EQ(p.value(QStringLiteral("bootstrap_port")).toInt(), bootstrapPort);
    EXPECT_TRUE(d.value(QStringLiteral("bootstrap_port")).isNull());
    EXPECT_EQ(workers.value(QStringLiteral("stats"))
                  .toObject()
                  .value(QStringLiteral("healthy_workers"))
                  .toInt(),
              2);

    const std::string metrics =
        httpGet(router.sidePort(QStringLiteral("metrics")), "/metrics").body;
    EXPECT_EQ(metricValue(metrics, "sgl_router_active_workers"), 2.0) << metrics;
    EXPECT_EQ(metricValue(metrics, "sgl_router_worker_health", {urlOf(decode).toStdString()}), 1.0);
}

TEST(simPd, RequestThroughTheRouterIsPrefilledThenDecoded)
{
    SimProcess prefill, decode, router;
    ASSERT_TRUE(prefill.start(engine(QStringLiteral("prefill"), QStringLiteral("0"))));
    ASSERT_TRUE(decode.start(engine(QStringLiteral("decode"), QStringLiteral("0"))));
    ASSERT_TRUE(router.start(routerArgs(prefill, decode))) << router.errorText().toStdString();
    ASSERT_TRUE(waitUntil([&] { return httpGet(router.port(), "/readiness").status == 200; }, 10s));

    const HttpReply reply =
        httpPost(router.port(), "/v1/chat/completions", chatBody(8, false, std::string(40, 'p')));
    ASSERT_EQ(reply.status, 200) << reply.body;
    const QJsonObject usage = jsonObject(reply.body).value(QStringLiteral("usage")).toObject();
    EXPECT_EQ(usage.value(QStringLiteral("prompt_tokens")).toInt(), 10);
    EXPECT_EQ(usage.value(QStringLiteral("completion_tokens")).toInt(), 8);
    EXPECT_EQ(usage.value(QStringLiteral("total_tokens")).toInt(), 18);

    // The prefill ran the prompt (and its one token), the decode the generation.
    const std::string prefillMetrics = httpGet(prefill.port(), "/metrics").body;
    EXPECT_EQ(metricValue(prefillMetrics, "sglang:num_requests_total"), 1.0);
    EXPECT_EQ(metricValue(prefillMetrics, "sglang:prompt_tokens_total"), 10.0);
    EXPECT_EQ(metricValue(prefillMetrics, "sglang:generation_tokens_total"), 1.0);
    EXPECT_NE(prefillMetrics.find("engine_type=\"prefill\""), std::string::npos);
    const std::string decodeMetrics = httpGet(decode.port(), "/metrics").body;
    EXPECT_EQ(metricValue(decodeMetrics, "sglang:num_requests_total"), 1.0);
    EXPECT_EQ(metricValue(decodeMetrics, "sglang:generation_tokens_total"), 8.0);
    EXPECT_EQ(metricValue(decodeMetrics, "sglang:num_bootstrap_failed_reqs_total"), 0.0);
    // The decode waited for the prefill's step (8.5 ms) before it could decode.
    EXPECT_GE(metricValue(decodeMetrics, "sglang:kv_transfer_latency_ms"), 4.0) << decodeMetrics;

    const std::string routerMetrics =
        httpGet(router.sidePort(QStringLiteral("metrics")), "/metrics").body;
    EXPECT_EQ(
        metricValue(routerMetrics, "sgl_router_requests_total", {"route=\"/v1/chat/completions\""}),
        1.0);
    EXPECT_EQ(metricValue(routerMetrics, "sgl_router_processed_requests_total",
                          {urlOf(prefill).toStdString()}),
              1.0);
    EXPECT_EQ(metricValue(routerMetrics, "sgl_router_processed_requests_total",
                          {urlOf(decode).toStdString()}),
              1.0);
    EXPECT_EQ(metricValue(routerMetrics, "sgl_router_request_duration_seconds_count"), 1.0);

    // Streaming through the router: SSE passes through and ends with [DONE].
    const HttpReply streamed =
        httpPost(router.port(), "/v1/chat/completions", chatBody(5, true, "hello", true));
    ASSERT_EQ(streamed.status, 200) << streamed.body;
    EXPECT_NE(streamed.body.find("\"object\":\"chat.completion.chunk\""), std::string::npos);
    EXPECT_NE(streamed.body.find("\"completion_tokens\":5"), std::string::npos) << streamed.body;
    EXPECT_EQ(streamed.body.substr(streamed.body.size() - 14), "data: [DONE]\n\n");
}

TEST(simPd, BootstrapAndTransferFailuresAreCountedAndAnswered5xx)
{
    SimProcess prefill, decode;
    ASSERT_TRUE(prefill.start(engine(QStringLiteral("prefill"), QStringLiteral("0"))));
    ASSERT_TRUE(
        decode.start(engine(QStringLiteral("decode"), QStringLiteral("0"),
                            {QStringLiteral("--kv-transfer-timeout"), QStringLiteral("1")})));
    const int bootstrapPort = jsonObject(httpGet(prefill.port(), "/server_info").body)
                                  .value(QStringLiteral("disaggregation_bootstrap_port"))
                                  .toInt();
    auto pdBody = [](int port, const std::string &room) {
        return R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":4,)"
               R"("bootstrap_host":"127.0.0.1","bootstrap_port":)" +
               std::to_string(port) + R"(,"bootstrap_room":)" + room + "}";
    };

    // Nobody listens at the bootstrap address: bootstrap failure.
    const HttpReply unreachable =
        httpPost(decode.port(), "/v1/chat/completions", pdBody(freeTcpPort(), "42"));
    EXPECT_EQ(unreachable.status, 500) << unreachable.body;
    // The prefill never heard of this room: transfer failure after the timeout.
    const HttpReply unknownRoom = httpPost(decode.port(), "/v1/chat/completions",
                                           pdBody(bootstrapPort, "9223372036854775807"));
    EXPECT_EQ(unknownRoom.status, 500) << unknownRoom.body;
    EXPECT_GE(unknownRoom.seconds, 0.9);
    EXPECT_FALSE(jsonObject(unknownRoom.body).value(QStringLiteral("error")).toObject().isEmpty());

    const std::string metrics = httpGet(decode.port(), "/metrics").body;
    EXPECT_EQ(metricValue(metrics, "sglang:num_bootstrap_failed_reqs_total"), 1.0) << metrics;
    EXPECT_EQ(metricValue(metrics, "sglang:num_transfer_failed_reqs_total"), 1.0) << metrics;
    EXPECT_EQ(metricValue(metrics, "sglang:num_requests_total"), 0.0);

    // Through the router, a prefill whose bootstrap server cannot be reached is a 5xx too.
    SimProcess router;
    ASSERT_TRUE(
        router.start({QStringLiteral("--role"), QStringLiteral("router"), QStringLiteral("--port"),
                      QStringLiteral("0"), QStringLiteral("--prefill"), urlOf(prefill),
                      QString::number(freeTcpPort()), QStringLiteral("--decode"), urlOf(decode),
                      QStringLiteral("--health-check-interval"), QStringLiteral("0.2")}))
        << router.errorText().toStdString();
    ASSERT_TRUE(waitUntil([&] { return httpGet(router.port(), "/readiness").status == 200; }, 10s));
    const HttpReply routed = httpPost(router.port(), "/v1/chat/completions", chatBody(4));
    EXPECT_GE(routed.status, 500) << routed.body;
    const std::string routerMetrics =
        httpGet(router.sidePort(QStringLiteral("metrics")), "/metrics").body;
    EXPECT_EQ(metricValue(routerMetrics, "sgl_router_pd_decode_errors_total",
                          {urlOf(decode).toStdString()}),
              1.0)
        << routerMetrics;
    EXPECT_EQ(metricValue(httpGet(decode.port(), "/metrics").body,
                          "sglang:num_bootstrap_failed_reqs_total"),
              2.0);
}
