// opsdeck-sim as a single engine: health, OpenAI shapes, streaming, metrics,
// process behaviour (SIGTERM, busy port).
#include "simhttp.h"
#include "simprocess.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QProcess>
#include <chrono>
#include <gtest/gtest.h>
#include <sstream>
#include <thread>
#include <tuple>

using namespace opsdeck::test;
using namespace std::chrono_literals;

namespace {

QStringList engineArgs(const QString &role, QStringList extra = {})
{
    QStringList args = {QStringLiteral("--role"),        role,
                        QStringLiteral("--port"),        QStringLiteral("0"),
                        QStringLiteral("--ready-delay"), QStringLiteral("0")};
    return args + extra;
}

// The `data:` payloads of an SSE body, in order.
std::vector<std::string> sseEvents(const std::string &body)
{
    std::vector<std::string> events;
    size_t pos = 0;
    while ((pos = body.find("data: ", pos)) != std::string::npos) {
        const size_t end = body.find("\n\n", pos);
        events.push_back(body.substr(pos + 6, end - pos - 6));
        pos = end == std::string::npos ? body.size() : end + 2;
    }
    return events;
}

} // namespace

TEST(simEngine, HealthGoesFrom503To200AfterTheReadyDelay)
{
    SimProcess sim;
    const auto launched = std::chrono::steady_clock::now();
    ASSERT_TRUE(
        sim.start({QStringLiteral("--role"), QStringLiteral("prefill"), QStringLiteral("--port"),
                   QStringLiteral("0"), QStringLiteral("--ready-delay"), QStringLiteral("1.5")}))
        << sim.errorText().toStdString();
    EXPECT_EQ(httpGet(sim.port(), "/health").status, 503);
    EXPECT_EQ(httpGet(sim.port(), "/health_generate").status, 503);
    EXPECT_EQ(httpPost(sim.port(), "/v1/chat/completions", chatBody(2)).status, 503)
        << "a starting engine must refuse work";

    ASSERT_TRUE(waitUntil([&] { return httpGet(sim.port(), "/health").status == 200; }, 10s));
    const double readyAfter =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - launched).count();
    EXPECT_GE(readyAfter, 1.4);
    EXPECT_LT(readyAfter, 5.0);
    EXPECT_EQ(httpGet(sim.port(), "/health_generate").status, 200);

    const QJsonObject info = jsonObject(httpGet(sim.port(), "/server_info").body);
    EXPECT_EQ(info.value(QStringLiteral("disaggregation_mode")).toString(),
              QStringLiteral("prefill"));
    EXPECT_EQ(info.value(QStringLiteral("disaggregation_transfer_backend")).toString(),
              QStringLiteral("mooncake"));
    EXPECT_EQ(info.value(QStringLiteral("served_model_name")).toString(),
              QStringLiteral("Qwen/Qwen3-8B"));
    EXPECT_GT(info.value(QStringLiteral("disaggregation_bootstrap_port")).toInt(), 0)
        << "--port 0 gives the bootstrap server a free port, reported here";
    // The log line and the first 200 race through different pipes: wait for it.
    EXPECT_TRUE(
        waitUntil([&] { return sim.errorText().contains(QStringLiteral("ready to roll")); }, 5s))
        << sim.errorText().toStdString();
}

TEST(simEngine, ChatCompletionHasTheOpenAiShapeAndEstimatedUsage)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(engineArgs(
        QStringLiteral("engine"), {QStringLiteral("--transfer-backend"), QStringLiteral("nixl")})))
        << sim.errorText().toStdString();
    // 40 characters of content -> 10 prompt tokens; no max_tokens -> 16.
    const std::string content(40, 'x');
    const HttpReply reply = httpPost(
        sim.port(), "/v1/chat/completions",
        R"({"model":"any/model","messages":[{"role":"user","content":")" + content + R"("}]})");
    ASSERT_EQ(reply.status, 200) << reply.body;
    const QJsonObject doc = jsonObject(reply.body);
    EXPECT_EQ(doc.value(QStringLiteral("object")).toString(), QStringLiteral("chat.completion"));
    EXPECT_EQ(doc.value(QStringLiteral("model")).toString(), QStringLiteral("any/model"));
    EXPECT_TRUE(doc.value(QStringLiteral("id")).toString().startsWith(QStringLiteral("chatcmpl-")));
    const QJsonObject choice = doc.value(QStringLiteral("choices")).toArray().at(0).toObject();
    EXPECT_EQ(choice.value(QStringLiteral("finish_reason")).toString(), QStringLiteral("length"));
    const QJsonObject message = choice.value(QStringLiteral("message")).toObject();
    EXPECT_EQ(message.value(QStringLiteral("role")).toString(), QStringLiteral("assistant"));
    EXPECT_EQ(message.value(QStringLiteral("content")).toString().split(QLatin1Char(' ')).size(),
              16);
    const QJsonObject usage = doc.value(QStringLiteral("usage")).toObject();
    EXPECT_EQ(usage.value(QStringLiteral("prompt_tokens")).toInt(), 10);
    EXPECT_EQ(usage.value(QStringLiteral("completion_tokens")).toInt(), 16);
    EXPECT_EQ(usage.value(QStringLiteral("total_tokens")).toInt(), 26);

    const QJsonObject info = jsonObject(httpGet(sim.port(), "/get_server_info").body);
    EXPECT_EQ(info.value(QStringLiteral("disaggregation_mode")).toString(), QStringLiteral("null"));
    EXPECT_EQ(info.value(QStringLiteral("disaggregation_transfer_backend")).toString(),
              QStringLiteral("nixl"));
    const QJsonObject models = jsonObject(httpGet(sim.port(), "/v1/models").body);
    EXPECT_EQ(models.value(QStringLiteral("object")).toString(), QStringLiteral("list"));
    EXPECT_EQ(models.value(QStringLiteral("data"))
                  .toArray()
                  .at(0)
                  .toObject()
                  .value(QStringLiteral("id"))
                  .toString(),
              QStringLiteral("Qwen/Qwen3-8B"));
}

TEST(simEngine, BadRequestsGet400WithAnOpenAiErrorBody)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(engineArgs(QStringLiteral("decode")))) << sim.errorText().toStdString();
    for (const std::string &body :
         {std::string("{not json"), std::string(R"({"model":"m"})"),
          std::string(R"({"messages":[{"role":"user","content":"x"}],"max_tokens":0})"),
          // More than the KV pool (--max-total-tokens, default 262144) holds.
          std::string(R"({"messages":[{"role":"user","content":"x"}],"max_tokens":1000000})"),
          // Nesting past 64 levels, a trailing comma, a comment: strict JSON only.
          std::string(200, '[') + std::string(200, ']'),
          std::string(R"({"messages":[{"role":"user","content":"x"}],})"),
          std::string(R"({"messages":[{"role":"user","content":"x"}]} // c)")}) {
        const HttpReply reply = httpPost(sim.port(), "/v1/chat/completions", body);
        EXPECT_EQ(reply.status, 400) << body;
        const QJsonObject error = jsonObject(reply.body).value(QStringLiteral("error")).toObject();
        EXPECT_FALSE(error.value(QStringLiteral("message")).toString().isEmpty()) << reply.body;
        EXPECT_EQ(error.value(QStringLiteral("code")).toInt(), 400) << reply.body;
    }
    // Bytes that are not UTF-8 in the prompt still give a JSON answer (replaced, not a throw).
    const HttpReply odd = httpPost(sim.port(), "/v1/chat/completions",
                                   "{\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe\"}],"
                                   "\"max_tokens\":2}");
    EXPECT_TRUE(odd.status == 200 || odd.status == 400) << odd.status;
    EXPECT_FALSE(jsonObject(odd.body).isEmpty()) << odd.body;
}

TEST(simEngine, StreamingChunksConcatenateToTheNonStreamingAnswer)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(engineArgs(QStringLiteral("engine")))) << sim.errorText().toStdString();
    const std::string prompt = "what is the state of the decode batch right now";
    const HttpReply whole =
        httpPost(sim.port(), "/v1/chat/completions", chatBody(12, false, prompt));
    ASSERT_EQ(whole.status, 200) << whole.body;
    const QJsonObject wholeDoc = jsonObject(whole.body);
    const QString wholeContent = wholeDoc.value(QStringLiteral("choices"))
                                     .toArray()
                                     .at(0)
                                     .toObject()
                                     .value(QStringLiteral("message"))
                                     .toObject()
                                     .value(QStringLiteral("content"))
                                     .toString();
    const int promptTokens = wholeDoc.value(QStringLiteral("usage"))
                                 .toObject()
                                 .value(QStringLiteral("prompt_tokens"))
                                 .toInt();
    EXPECT_EQ(promptTokens, static_cast<int>((prompt.size() + 3) / 4));

    const HttpReply streamed =
        httpPost(sim.port(), "/v1/chat/completions", chatBody(12, true, prompt, true));
    ASSERT_EQ(streamed.status, 200) << streamed.body;
    bool eventStream = false;
    for (const auto &[name, value] : streamed.headers)
        eventStream =
            eventStream || (name == "Content-Type" && value.rfind("text/event-stream", 0) == 0);
    EXPECT_TRUE(eventStream);

    const auto events = sseEvents(streamed.body);
    ASSERT_GE(events.size(), 4u) << streamed.body;
    EXPECT_EQ(events.back(), "[DONE]");
    QString content;
    QString id;
    int contentChunks = 0;
    bool sawRole = false, sawFinish = false;
    QJsonObject usage;
    for (size_t i = 0; i + 1 < events.size(); ++i) {
        const QJsonObject chunk = jsonObject(events[i]);
        EXPECT_EQ(chunk.value(QStringLiteral("object")).toString(),
                  QStringLiteral("chat.completion.chunk"));
        if (id.isEmpty())
            id = chunk.value(QStringLiteral("id")).toString();
        EXPECT_EQ(chunk.value(QStringLiteral("id")).toString(), id) << "one id per stream";
        const QJsonArray choices = chunk.value(QStringLiteral("choices")).toArray();
        if (chunk.contains(QStringLiteral("usage")) &&
            !chunk.value(QStringLiteral("usage")).isNull()) {
            usage = chunk.value(QStringLiteral("usage")).toObject();
            EXPECT_TRUE(choices.isEmpty());
            continue;
        }
        ASSERT_EQ(choices.size(), 1);
        const QJsonObject delta =
            choices.at(0).toObject().value(QStringLiteral("delta")).toObject();
        sawRole = sawRole ||
                  delta.value(QStringLiteral("role")).toString() == QStringLiteral("assistant");
        const QString piece = delta.value(QStringLiteral("content")).toString();
        if (!piece.isEmpty()) {
            content += piece;
            ++contentChunks;
        }
        sawFinish = sawFinish ||
                    choices.at(0).toObject().value(QStringLiteral("finish_reason")).toString() ==
                        QStringLiteral("length");
    }
    EXPECT_TRUE(sawRole);
    EXPECT_TRUE(sawFinish);
    EXPECT_EQ(contentChunks, 12);
    EXPECT_EQ(content, wholeContent);
    EXPECT_EQ(usage.value(QStringLiteral("prompt_tokens")).toInt(), promptTokens);
    EXPECT_EQ(usage.value(QStringLiteral("completion_tokens")).toInt(), 12);
    EXPECT_EQ(usage.value(QStringLiteral("total_tokens")).toInt(), promptTokens + 12);
}

TEST(simEngine, ClientThatLeavesAStreamTakesItsRequestOutOfTheBatch)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(engineArgs(QStringLiteral("decode")))) << sim.errorText().toStdString();
    // 400 tokens take ~4 s; the client reads three events and hangs up.
    std::thread reader([port = sim.port()] {
        httplib::Client client("127.0.0.1", port);
        client.set_read_timeout(std::chrono::seconds(30));
        httplib::Request req;
        req.method = "POST";
        req.path = "/v1/chat/completions";
        req.body = chatBody(400, true);
        req.set_header("Content-Type", "application/json");
        int events = 0;
        req.content_receiver = [&](const char *data, size_t length, uint64_t, uint64_t) {
            events +=
                static_cast<int>(std::string(data, length).find("data: ") != std::string::npos);
            return events < 3;
        };
        httplib::Response res;
        httplib::Error error;
        client.send(req, res, error);
    });
    ASSERT_TRUE(waitUntil([&] { return totalRunning(sim.port()) == 1; }, 5s));
    const auto left = std::chrono::steady_clock::now();
    reader.join();
    ASSERT_TRUE(waitUntil([&] { return totalRunning(sim.port()) == 0; }, 10s));
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - left).count(), 1.5)
        << "the request must leave the batch when its client goes, not when it would finish";
    const std::string metrics = httpGet(sim.port(), "/metrics").body;
    EXPECT_EQ(metricValue(metrics, "sglang:num_aborted_requests_total"), 1.0);
    EXPECT_EQ(httpGet(sim.port(), "/health").status, 200);
}

TEST(simEngine, MetricsPageHasSglangFamiliesAndOneSeriesPerDpRank)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(
        engineArgs(QStringLiteral("decode"), {QStringLiteral("--dp"), QStringLiteral("2")})))
        << sim.errorText().toStdString();
    // Four concurrent requests spread round-robin: both ranks run two.
    std::vector<std::thread> clients;
    for (int i = 0; i < 4; ++i)
        clients.emplace_back(
            [port = sim.port()] { httpPost(port, "/v1/chat/completions", chatBody(80)); });
    bool bothRanksBusy = false;
    waitUntil(
        [&] {
            const QJsonArray loads = jsonObject(httpGet(sim.port(), "/v1/loads").body)
                                         .value(QStringLiteral("loads"))
                                         .toArray();
            bothRanksBusy =
                loads.size() == 2 &&
                loads.at(0).toObject().value(QStringLiteral("num_running_reqs")).toInt() == 2 &&
                loads.at(1).toObject().value(QStringLiteral("num_running_reqs")).toInt() == 2;
            return bothRanksBusy;
        },
        5s);
    // /metrics gauges are written at each prefill step (and every 40 decode
    // steps, as SGLang's): the rank's second prefill may still be running.
    std::string busyPage;
    waitUntil(
        [&] {
            busyPage = httpGet(sim.port(), "/metrics").body;
            return metricValue(busyPage, "sglang:num_running_reqs", {"dp_rank=\"1\""}) == 2.0;
        },
        5s);
    for (auto &client : clients)
        client.join();
    EXPECT_TRUE(bothRanksBusy) << "each dp rank has its own scheduler and batch";
    EXPECT_EQ(metricValue(busyPage, "sglang:num_running_reqs", {"dp_rank=\"1\""}), 2.0) << busyPage;

    const std::string page = httpGet(sim.port(), "/metrics").body;
    for (const char *gauge :
         {"sglang:num_running_reqs", "sglang:num_queue_reqs", "sglang:token_usage",
          "sglang:gen_throughput", "sglang:cache_hit_rate",
          "sglang:num_prefill_prealloc_queue_reqs", "sglang:num_prefill_inflight_queue_reqs",
          "sglang:num_decode_prealloc_queue_reqs", "sglang:num_decode_transfer_queue_reqs"}) {
        EXPECT_NE(page.find(std::string("# TYPE ") + gauge + " gauge\n"), std::string::npos)
            << gauge;
        EXPECT_EQ(sampleCount(page, gauge), 2) << gauge << ": one series per dp rank";
    }
    for (const char *counter :
         {"sglang:prompt_tokens_total", "sglang:generation_tokens_total",
          "sglang:num_requests_total", "sglang:num_bootstrap_failed_reqs_total",
          "sglang:num_transfer_failed_reqs_total"})
        EXPECT_NE(page.find(std::string("# TYPE ") + counter + " counter\n"), std::string::npos)
            << counter;
    // One TTFT and one E2E per request, one ITL per decoded token (79 per request).
    for (const auto &[histogram, count] :
         {std::pair{"sglang:time_to_first_token_seconds", 4.0},
          std::pair{"sglang:e2e_request_latency_seconds", 4.0},
          std::pair{"sglang:inter_token_latency_seconds", 4.0 * 79}}) {
        EXPECT_NE(page.find(std::string("# TYPE ") + histogram + " histogram\n"),
                  std::string::npos);
        EXPECT_EQ(metricValue(page, std::string(histogram) + "_count"), count) << histogram;
        EXPECT_EQ(metricValue(page, std::string(histogram) + "_bucket", {"le=\"+Inf\""}), count);
    }
    EXPECT_NE(page.find("# HELP sglang:num_running_reqs The number of running requests.\n"),
              std::string::npos);
    for (const char *rank : {"0", "1"}) {
        const std::string labels =
            std::string("dp_rank=\"") + rank +
            "\",engine_type=\"decode\",model_name=\"Qwen/Qwen3-8B\",pp_rank=\"0\",tp_rank=\"" +
            rank + "\"";
        EXPECT_NE(page.find("sglang:num_queue_reqs{" + labels + "} 0.0"), std::string::npos)
            << labels;
    }
    EXPECT_EQ(metricValue(page, "sglang:num_requests_total"), 4.0);
    EXPECT_EQ(metricValue(page, "sglang:generation_tokens_total"), 320.0);
}

TEST(simEngine, SigtermWithAnOpenKeptAliveConnectionExitsZeroPromptly)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(engineArgs(QStringLiteral("engine")))) << sim.errorText().toStdString();
    httplib::Client idle("127.0.0.1", sim.port());
    idle.set_keep_alive(true);
    ASSERT_TRUE(idle.Get("/health")); // the connection stays open, idle
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(sim.stop(std::chrono::seconds(10)), 0);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 3.0);
    EXPECT_TRUE(sim.errorText().contains(QStringLiteral("shutdown complete")));
}

TEST(simEngine, APortInUseIsRefusedWithAMessageNamingIt)
{
    SimProcess first;
    ASSERT_TRUE(first.start(engineArgs(QStringLiteral("engine"))))
        << first.errorText().toStdString();
    const QString busy = QString::number(first.port());
    SimProcess second;
    EXPECT_FALSE(second.start(
        {QStringLiteral("--role"), QStringLiteral("decode"), QStringLiteral("--port"), busy}));
    EXPECT_EQ(second.stop(), 2);
    EXPECT_TRUE(second.errorText().contains(QStringLiteral("port ") + busy))
        << second.errorText().toStdString();
    EXPECT_TRUE(second.errorText().contains(QStringLiteral("in use")))
        << second.errorText().toStdString();
    EXPECT_EQ(httpGet(first.port(), "/health").status, 200) << "the first owner is unharmed";
}

TEST(simEngine, TrafficGeneratorRunsBoundedConversations)
{
    SimProcess engine;
    ASSERT_TRUE(engine.start(engineArgs(QStringLiteral("engine"))))
        << engine.errorText().toStdString();
    SimProcess traffic;
    ASSERT_TRUE(traffic.start(
        {QStringLiteral("--role"), QStringLiteral("traffic"), QStringLiteral("--target"),
         QStringLiteral("http://127.0.0.1:%1").arg(engine.port()), QStringLiteral("--clients"),
         QStringLiteral("3"), QStringLiteral("--max-tokens"), QStringLiteral("4"),
         QStringLiteral("--idle-gap-ms"), QStringLiteral("20"), QStringLiteral("--requests"),
         QStringLiteral("12")}))
        << traffic.errorText().toStdString();
    // It stops by itself after 12 requests and exits 0.
    ASSERT_TRUE(waitUntil([&] { return !processAlive(traffic.pid()); }, 20s))
        << traffic.errorText().toStdString();
    EXPECT_EQ(traffic.stop(), 0);
    EXPECT_TRUE(traffic.errorText().contains(QStringLiteral("traffic: 12 completed")))
        << traffic.errorText().toStdString();
    const std::string metrics = httpGet(engine.port(), "/metrics").body;
    EXPECT_EQ(metricValue(metrics, "sglang:num_requests_total"), 12.0);
    EXPECT_EQ(metricValue(metrics, "sglang:generation_tokens_total"), 48.0);
    // Multi-round: later rounds carry the history, so prompts grow past one round's.
    EXPECT_GT(metricValue(metrics, "sglang:prompt_tokens_total"), 12.0 * 25);
}

TEST(simOptions, BadFlagsExitTwoNamingTheFlagAndTheHelpListsEachFlagOnce)
{
    const auto run = [](const QStringList &arguments) {
        QProcess sim;
        sim.start(opsdeck::test::binPath(QStringLiteral("opsdeck-sim")), arguments);
        EXPECT_TRUE(sim.waitForFinished(10'000));
        return std::tuple{sim.exitCode(), QString::fromUtf8(sim.readAllStandardOutput()),
                          QString::fromUtf8(sim.readAllStandardError())};
    };
    for (const QStringList &bad :
         {QStringList{QStringLiteral("--role"), QStringLiteral("bogus")},
          QStringList{QStringLiteral("--role"), QStringLiteral("engine"), QStringLiteral("--port"),
                      QStringLiteral("70000")},
          QStringList{QStringLiteral("--role"), QStringLiteral("engine"),
                      QStringLiteral("--log-interval"), QStringLiteral("nan")},
          QStringList{QStringLiteral("--role"), QStringLiteral("router"),
                      QStringLiteral("--prefill-bootstrap-port"), QStringLiteral("5")},
          QStringList{QStringLiteral("--role"), QStringLiteral("engine"), QStringLiteral("--fault"),
                      QStringLiteral("reused-stall=inf")}}) {
        const auto [code, out, err] = run(bad);
        EXPECT_EQ(code, 2) << bad.join(u' ').toStdString();
        EXPECT_TRUE(err.contains(bad.at(bad.size() - 2))) << err.toStdString();
    }
    const auto [code, help, err] = run({QStringLiteral("--help")});
    EXPECT_EQ(code, 0);
    for (const char *flag :
         {"--role", "--fault", "--max-running-requests", "--prefill", "--upstream", "--clients",
          "--first-token-delay-ms", "--kv-transfer-timeout", "--worker-failed-after"})
        EXPECT_EQ(help.count(QStringLiteral("  %1 ").arg(QLatin1String(flag))), 1) << flag;
    for (const char *group : {"ALL ROLES", "ENGINES", "ROUTER", "PROXY", "TRAFFIC"})
        EXPECT_TRUE(help.contains(QLatin1String(group))) << group;
}
