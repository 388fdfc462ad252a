// ProbeGroup: N probes at once, every one back, in order; a deadline and a
// cancel end the wait with every request still reported.
#include "loadsample.h"
#include "probeengine.h"
#include "probegroup.h"
#include "probetestsupport.h"
#include "simprocess.h"
#include "testsupport.h"

#include <QDateTime>
#include <gtest/gtest.h>
#include <thread>

using namespace opsdeck;
using namespace opsdeck::probes;
using namespace Qt::StringLiterals;
using Clock = std::chrono::steady_clock;

namespace {

// A chat of 400 tokens takes about 4 s on the sim's default step model: long
// enough for a deadline or a cancel to land while it runs.
ProbeRequest slowChat(const test::SimProcess &sim)
{
    ProbeRequest request = test::chatProbe(sim.url(), ProbeKind::Chat, ConnectionMode::Fresh, 400);
    request.timeoutMs = 30'000;
    return request;
}

} // namespace

TEST(ProbeGroup, EveryRequestComesBackInOrderWithItsAnswerTime)
{
    test::SimProcess sim;
    ASSERT_TRUE(sim.start(test::simArgs(u"engine"_s))) << sim.errorText().toStdString();
    ProbeEngine engine;
    ProbeGroup group(engine);
    QVector<ProbeRequest> requests;
    for (const QString &path : {u"/health"_s, u"/v1/models"_s, u"/no-such-page"_s}) {
        requests << test::getProbe(sim.url(), path, ConnectionMode::Fresh);
        requests.last().label = path;
    }
    std::atomic<int> answers{0};
    ProbeGroup::Options options;
    options.onAnswer = [&](int, const ProbeResult &, int answered) { answers = answered; };
    const ProbeGroup::Outcome outcome = group.runAll(requests, options);
    ASSERT_EQ(outcome.results.size(), 3);
    EXPECT_EQ(outcome.results.at(0).label, u"/health"_s);
    EXPECT_EQ(outcome.results.at(0).status, 200);
    EXPECT_EQ(outcome.results.at(1).label, u"/v1/models"_s);
    EXPECT_TRUE(outcome.results.at(1).body.contains("Qwen/Qwen3-8B"));
    EXPECT_EQ(outcome.results.at(2).status, 404);
    EXPECT_EQ(answers.load(), 3) << "every onAnswer returned before runAll()";
    for (double at : outcome.answeredAtMs) {
        EXPECT_GE(at, 0);
        EXPECT_LE(at, outcome.elapsedMs);
    }
    EXPECT_FALSE(outcome.timedOut);
    EXPECT_FALSE(outcome.cancelled);
}

TEST(ProbeGroup, ADeadlineEndsTheWaitAndTicksCameMeanwhile)
{
    test::SimProcess sim;
    ASSERT_TRUE(sim.start(test::simArgs(u"engine"_s))) << sim.errorText().toStdString();
    ProbeEngine engine;
    ProbeGroup group(engine);
    ProbeGroup::Options options;
    options.deadline = Clock::now() + std::chrono::milliseconds(600);
    options.tickInterval = std::chrono::milliseconds(100);
    QVector<qint64> ticks;
    options.onTick = [&](std::chrono::milliseconds at) { ticks << at.count(); };
    const ProbeGroup::Outcome outcome = group.runAll({slowChat(sim), slowChat(sim)}, options);
    EXPECT_TRUE(outcome.timedOut);
    EXPECT_FALSE(outcome.cancelled);
    EXPECT_LT(outcome.elapsedMs, 3'000) << "the deadline, not the 4 s answers, ended it";
    ASSERT_EQ(outcome.results.size(), 2);
    for (const ProbeResult &result : outcome.results) {
        EXPECT_FALSE(result.ok());
        EXPECT_TRUE(result.cancelled) << result.error.toStdString();
    }
    ASSERT_GE(ticks.size(), 4);
    EXPECT_EQ(ticks.first(), 0);
    EXPECT_EQ(ticks.at(1), 100) << "ticks on a fixed grid from the submission";
}

TEST(ProbeGroup, CancelFromAnotherThreadEndsTheWaitAndSticks)
{
    test::SimProcess sim;
    ASSERT_TRUE(sim.start(test::simArgs(u"engine"_s))) << sim.errorText().toStdString();
    ProbeEngine engine;
    ProbeGroup group(engine);
    ProbeGroup::Outcome outcome;
    std::thread waiter([&] { outcome = group.runAll({slowChat(sim)}); });
    // Cancel while the chat runs on the engine (its /v1/loads says so).
    const bool running = test::waitUntil(
        [&] {
            const ProbeResult loads =
                engine.run(test::getProbe(sim.url(), u"/v1/loads"_s, ConnectionMode::Fresh));
            const auto sample = parseLoads(loads.body);
            return sample && sample->running >= 1;
        },
        std::chrono::seconds(10));
    const Clock::time_point cancelledAt = Clock::now();
    group.cancel();
    waiter.join();
    ASSERT_TRUE(running) << "the slow chat never showed as running";
    EXPECT_LT(Clock::now() - cancelledAt, std::chrono::seconds(3));
    EXPECT_TRUE(outcome.cancelled);
    ASSERT_EQ(outcome.results.size(), 1);
    EXPECT_TRUE(outcome.results.first().cancelled);
    EXPECT_TRUE(group.isCancelled());

    // Sticky: the next step of a sequence stops at once, reporting its request
    // (nothing was sent, so nothing is waited for: a stopping watch or
    // recorder once spent 3 s here).
    const Clock::time_point nextAt = Clock::now();
    const ProbeResult next =
        group.runOne(test::getProbe(sim.url(), u"/health"_s, ConnectionMode::Fresh));
    EXPECT_LT(Clock::now() - nextAt, std::chrono::seconds(1));
    EXPECT_TRUE(next.cancelled);
    EXPECT_EQ(next.status, 0);
    EXPECT_EQ(next.error, u"cancelled"_s);
}
