// opsdeck-sim's /metrics scheduler gauges are written as SGLang writes them
// (each prefill step, every --decode-log-interval decode steps, every 30 s
// when idle), while /v1/loads and the counters stay live.
#include "simhttp.h"
#include "simprocess.h"
#include "testsupport.h"

#include <atomic>
#include <chrono>
#include <gtest/gtest.h>
#include <set>
#include <thread>

using namespace opsdeck::test;
using namespace std::chrono_literals;

namespace {

// Six requests sent together: they are prefilled at once, then finish one by
// one after 4, 8, ... 24 decode steps, so the batch shrinks from 6 to 0 in
// fewer than 40 decode steps. Slow steps (30 ms) leave time for many reads.
const std::vector<int> kMaxTokens = {5, 9, 13, 17, 21, 25};
constexpr double kGenerated = 5 + 9 + 13 + 17 + 21 + 25;

QStringList engineArgs(const QString &decodeLogInterval)
{
    QStringList args = {QStringLiteral("--role"),
                        QStringLiteral("engine"),
                        QStringLiteral("--port"),
                        QStringLiteral("0"),
                        QStringLiteral("--ready-delay"),
                        QStringLiteral("0"),
                        QStringLiteral("--decode-step-base-ms"),
                        QStringLiteral("30")};
    if (!decodeLogInterval.isEmpty())
        args << QStringLiteral("--decode-log-interval") << decodeLogInterval;
    return args;
}

struct Read
{
    int loadsRunning = -1;      ///< /v1/loads aggregate.total_running_reqs
    double metricsRunning = -1; ///< /metrics sglang:num_running_reqs
};

/// Sends kMaxTokens concurrently and reads both endpoints, one after the
/// other, until every answer is in (bounded by 60 s).
std::vector<Read> readWhileServing(int port)
{
    std::atomic<int> done{0};
    std::vector<std::thread> clients;
    for (const int maxTokens : kMaxTokens)
        clients.emplace_back([port, maxTokens, &done] {
            httpPost(port, "/v1/chat/completions", chatBody(maxTokens));
            ++done;
        });
    std::vector<Read> reads;
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (done < static_cast<int>(kMaxTokens.size()) &&
           std::chrono::steady_clock::now() < deadline) {
        Read read;
        read.loadsRunning = totalRunning(port);
        read.metricsRunning =
            metricValue(httpGet(port, "/metrics").body, "sglang:num_running_reqs");
        reads.push_back(read);
    }
    for (auto &client : clients)
        client.join();
    return reads;
}

} // namespace

TEST(simGauges, MetricsRunningHoldsForFewerThan40DecodeStepsWhileLoadsIsLive)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(engineArgs(QString()))) << sim.errorText().toStdString();
    const std::vector<Read> reads = readWhileServing(sim.port());
    ASSERT_FALSE(reads.empty());

    const std::string page = httpGet(sim.port(), "/metrics").body;
    const double held = metricValue(page, "sglang:num_running_reqs");
    EXPECT_EQ(totalRunning(sim.port()), 0) << "/v1/loads: every request has finished";
    EXPECT_GT(held, 0.0) << "/metrics still shows the batch of its last write (a prefill step): "
                            "no 40th decode step came since\n"
                         << page;
    // The last stretch of reads during which /metrics already showed that
    // value: /v1/loads moved meanwhile, the gauge did not.
    std::set<int> loadsWhileHeld;
    for (auto it = reads.rbegin(); it != reads.rend() && it->metricsRunning == held; ++it)
        loadsWhileHeld.insert(it->loadsRunning);
    EXPECT_GE(loadsWhileHeld.size(), 3u) << reads.size() << " reads";
    // Counters are not cached: every generated token is counted at once.
    EXPECT_EQ(metricValue(page, "sglang:generation_tokens_total"), kGenerated);
    EXPECT_EQ(metricValue(page, "sglang:num_requests_total"), 6.0);
}

TEST(simGauges, WithDecodeLogIntervalOneMetricsFollowsTheBatch)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(engineArgs(QStringLiteral("1")))) << sim.errorText().toStdString();
    const std::vector<Read> reads = readWhileServing(sim.port());
    ASSERT_FALSE(reads.empty());

    EXPECT_EQ(totalRunning(sim.port()), 0);
    EXPECT_EQ(metricValue(httpGet(sim.port(), "/metrics").body, "sglang:num_running_reqs"), 0.0)
        << "written after the last decode step too";
    std::set<double> metricsSeen;
    int agreed = 0;
    for (const Read &read : reads) {
        metricsSeen.insert(read.metricsRunning);
        agreed += read.metricsRunning == read.loadsRunning ? 1 : 0;
    }
    EXPECT_GE(metricsSeen.size(), 3u) << "the gauge follows the shrinking batch";
    // A step may fall between the two reads of a pair; most pairs agree.
    EXPECT_GE(agreed * 2, static_cast<int>(reads.size())) << agreed << " of " << reads.size();
}

TEST(simGauges, DecodeLogIntervalIsValidated)
{
    SimProcess sim;
    EXPECT_FALSE(
        sim.start(engineArgs(QStringLiteral("0")), QProcessEnvironment::systemEnvironment(), 5s));
    EXPECT_TRUE(sim.errorText().contains(QStringLiteral("--decode-log-interval")))
        << sim.errorText().toStdString();
}
