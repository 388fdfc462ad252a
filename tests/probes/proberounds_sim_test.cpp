// ProbeRounds + StallDiagnoser against a real PD cluster of opsdeck-sim on
// loopback (prefill, decode, router, proxy): the stall placed on the proxy or
// the router as the fault moves, none without a fault, stale keep-alive
// replacements never counted, and stop() ending a long idle gap.
#include "probeengine.h"
#include "probepath.h"
#include "proberounds.h"
#include "stallcluster.h"
#include "testsupport.h"

#include <QSet>
#include <chrono>
#include <condition_variable>
#include <gtest/gtest.h>
#include <mutex>
#include <thread>

using namespace opsdeck;
using namespace opsdeck::probes;
using namespace std::chrono_literals;
using namespace Qt::StringLiterals;
using test::StallCluster;

namespace {

inventory::Inventory load(const StallCluster &cluster)
{
    const inventory::LoadResult result =
        inventory::parseInventory(cluster.inventoryYaml().toUtf8(), u"stall-cluster.yaml"_s);
    EXPECT_TRUE(result.errors.isEmpty())
        << (result.errors.isEmpty() ? std::string() : result.errors[0].toString().toStdString());
    return result.inventory.value_or(inventory::Inventory{});
}

QVector<ProbeRequestFactory> factoriesOf(const inventory::Inventory &inventory)
{
    QVector<ProbeRequestFactory> factories;
    for (const ProbePath &path : probePaths(inventory, inventory.clusters.first()))
        factories << ProbeRequestFactory::withoutSecrets(path);
    return factories;
}

/// Small gaps keep each test to seconds: idle 0.5 s, so the probe timeout is 2 s.
ProbeRounds::Settings quick(int rounds = 3)
{
    ProbeRounds::Settings settings;
    settings.rounds = rounds;
    settings.idleGapS = 0.5;
    return settings;
}

int pathIndex(const StallDiagnoser &d, const QString &name)
{
    for (int i = 0; i < d.paths().size(); ++i)
        if (d.paths().at(i).name == name)
            return i;
    return -1;
}

QString dump(const StallDiagnoser &d)
{
    QString text;
    for (int i = 0; i < d.paths().size(); ++i)
        for (const StallDiagnoser::Sample &s : d.samples(i))
            text += u"%1 r%2 %3: %4\n"_s.arg(d.paths().at(i).name)
                        .arg(s.round)
                        .arg(StallDiagnoser::verdictName(s.verdict), s.reason);
    return text;
}

} // namespace

TEST(ProbeRoundsWithSim, AProxyStallIsPlacedOnTheProxy)
{
    StallCluster cluster;
    // A stall far beyond the 2 s probe timeout: every reused probe via the
    // proxy times out. When a stall ends the proxy still forwards the abandoned
    // chat to the engines; with a 3 s stall that came ~0.5 s after the next
    // round read the decode's /v1/loads, so a round delayed that much (a loaded
    // machine) read our own chat as decode work (running 1). The stall outlasts
    // the whole run instead (checked below); the sims stop mid-stall on SIGTERM.
    constexpr double proxyStallS = 30;
    ASSERT_TRUE(cluster.start(proxyStallS, 0)) << cluster.error.toStdString();
    ASSERT_TRUE(cluster.waitReady(20s));
    const inventory::Inventory inventory = load(cluster);
    ProbeEngine engine;
    ProbeRounds rounds(engine, factoriesOf(inventory), quick());
    int roundsSeen = 0;
    rounds.setRoundCallback([&](int round, const StallDiagnoser &) { roundsSeen = round; });
    const auto runStarted = std::chrono::steady_clock::now();
    const std::optional<Diagnosis> diagnosis = rounds.run();
    const double runS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - runStarted).count();
    EXPECT_LT(runS, proxyStallS) << "no stalled chat may reach the engines during the run";
    const StallDiagnoser &d = rounds.diagnoser();
    ASSERT_TRUE(diagnosis) << dump(d).toStdString() << cluster.logs().toStdString();
    EXPECT_EQ(diagnosis->hop, u"proxy-0"_s);
    EXPECT_EQ(diagnosis->roleName(), u"proxy"_s);
    EXPECT_EQ(diagnosis->rounds, (QVector<int>{1, 2, 3}));
    EXPECT_TRUE(diagnosis->evidence.contains(u"timeouts at"_s))
        << diagnosis->evidence.toStdString();
    EXPECT_EQ(roundsSeen, 3);
    EXPECT_EQ(diagnosis->decodeRunningMax, 0) << "read from the decode's /v1/loads";
    EXPECT_TRUE(diagnosis->caution.startsWith(u"The engines are idle"_s))
        << diagnosis->caution.toStdString();
    EXPECT_EQ(rounds.model(), u"Qwen/Qwen3-8B"_s) << "the sim's default served model";
    EXPECT_EQ(rounds.probeName(pathIndex(d, u"via proxy"_s)), u"chat"_s);
    EXPECT_EQ(rounds.probeName(pathIndex(d, u"decode direct"_s)), u"health"_s);

    // The router entered directly answered fresh and reused at once, on one kept connection.
    const int router = pathIndex(d, u"router direct"_s);
    ASSERT_EQ(d.samples(router).size(), 3);
    QSet<int> reusedPorts, freshPorts;
    for (const StallDiagnoser::Sample &s : d.samples(router)) {
        EXPECT_EQ(s.verdict, StallDiagnoser::Verdict::Clear) << s.reason.toStdString();
        EXPECT_TRUE(s.reused.connectionReused);
        EXPECT_EQ(s.reused.connectMs, 0);
        EXPECT_FALSE(s.fresh.connectionReused);
        reusedPorts << s.reused.localPort;
        freshPorts << s.fresh.localPort;
    }
    EXPECT_EQ(reusedPorts.size(), 1) << "reused probes keep one connection";
    EXPECT_EQ(freshPorts.size(), 3) << "fresh probes open a new connection each time";
    for (const StallDiagnoser::Sample &s : d.samples(pathIndex(d, u"via proxy"_s))) {
        EXPECT_TRUE(s.reused.timedOut);
        EXPECT_TRUE(s.fresh.ok()) << s.fresh.error.toStdString();
    }
}

TEST(ProbeRoundsWithSim, ARouterStallIsPlacedOnTheRouter)
{
    StallCluster cluster;
    // 1.5 s stall within a 5 s timeout: caught by the 10x rule, not by timeouts.
    ASSERT_TRUE(cluster.start(0, 1.5)) << cluster.error.toStdString();
    ASSERT_TRUE(cluster.waitReady(20s));
    ProbeEngine engine;
    ProbeRounds::Settings settings = quick();
    settings.timeoutMs = 5000;
    ProbeRounds rounds(engine, factoriesOf(load(cluster)), settings);
    const std::optional<Diagnosis> diagnosis = rounds.run();
    const StallDiagnoser &d = rounds.diagnoser();
    ASSERT_TRUE(diagnosis) << dump(d).toStdString() << cluster.logs().toStdString();
    EXPECT_EQ(diagnosis->hop, u"router-0"_s);
    EXPECT_EQ(diagnosis->role, inventory::Role::Router);
    for (const StallDiagnoser::Sample &s : d.samples(pathIndex(d, u"router direct"_s))) {
        EXPECT_FALSE(s.reused.timedOut);
        EXPECT_GE(s.reused.totalMs, 1500);
    }
    for (const StallDiagnoser::Sample &s : d.samples(pathIndex(d, u"decode direct"_s)))
        EXPECT_EQ(s.verdict, StallDiagnoser::Verdict::Clear) << s.reason.toStdString();
}

TEST(ProbeRoundsWithSim, NoFaultNoStall)
{
    StallCluster cluster;
    ASSERT_TRUE(cluster.start(0, 0)) << cluster.error.toStdString();
    ASSERT_TRUE(cluster.waitReady(20s));
    ProbeEngine engine;
    ProbeRounds rounds(engine, factoriesOf(load(cluster)), quick());
    EXPECT_FALSE(rounds.run()) << dump(rounds.diagnoser()).toStdString()
                               << cluster.logs().toStdString();
    const StallDiagnoser &d = rounds.diagnoser();
    ASSERT_EQ(d.paths().size(), 4);
    for (int i = 0; i < d.paths().size(); ++i) {
        ASSERT_EQ(d.samples(i).size(), 3);
        for (const StallDiagnoser::Sample &s : d.samples(i)) {
            EXPECT_EQ(s.verdict, StallDiagnoser::Verdict::Clear) << s.reason.toStdString();
            EXPECT_TRUE(s.reused.connectionReused);
        }
    }
    if (::testing::Test::HasFailure())
        ADD_FAILURE() << dump(d).toStdString() << cluster.logs().toStdString();
}

TEST(ProbeRoundsWithSim, StaleKeepAliveReplacementsAreNeverStalls)
{
    StallCluster cluster;
    // The proxy stalls reused connections but closes them after 1 s idle; the
    // rounds idle 1.5 s, so every reused probe finds its connection closed and
    // gets a new one: stale, inconclusive, never a stall and never "down".
    ASSERT_TRUE(cluster.start(3, 0, {u"--keep-alive-timeout"_s, u"1"_s}))
        << cluster.error.toStdString();
    ASSERT_TRUE(cluster.waitReady(20s));
    ProbeEngine engine;
    ProbeRounds::Settings settings = quick();
    settings.idleGapS = 1.5;
    ProbeRounds rounds(engine, factoriesOf(load(cluster)), settings);
    EXPECT_FALSE(rounds.run()) << dump(rounds.diagnoser()).toStdString()
                               << cluster.logs().toStdString();
    const StallDiagnoser &d = rounds.diagnoser();
    const int proxy = pathIndex(d, u"via proxy"_s);
    ASSERT_EQ(d.samples(proxy).size(), 3);
    for (const StallDiagnoser::Sample &s : d.samples(proxy)) {
        EXPECT_TRUE(s.reused.staleKeepAlive) << s.reason.toStdString();
        EXPECT_TRUE(s.reused.ok()) << s.reused.error.toStdString();
        EXPECT_EQ(s.verdict, StallDiagnoser::Verdict::Inconclusive);
    }
}

TEST(ProbeRoundsWithSim, StopEndsALongIdleGap)
{
    StallCluster cluster;
    ASSERT_TRUE(cluster.start(0, 0)) << cluster.error.toStdString();
    ASSERT_TRUE(cluster.waitReady(20s));
    ProbeEngine engine;
    ProbeRounds::Settings settings = quick();
    // Without an interruptible wait this test would outlast ctest's 300 s timeout.
    settings.idleGapS = ProbeRounds::kMaxIdleGapS;
    ProbeRounds rounds(engine, factoriesOf(load(cluster)), settings);
    std::atomic<int> warmUps{0};
    std::mutex mutex;
    std::condition_variable warmedUp;
    rounds.setResultCallback([&](int round, int, const ProbeResult &result) {
        if (round == 0 && result.mode == ConnectionMode::Reused) {
            const std::lock_guard lock(mutex);
            ++warmUps;
            warmedUp.notify_all();
        }
    });
    std::thread stopper([&] {
        // Bounded: the warm-ups end within their 60 s timeout whatever happens.
        std::unique_lock lock(mutex);
        warmedUp.wait_for(lock, 60s, [&] { return warmUps.load() >= 4; });
        lock.unlock();
        rounds.stop();
    });
    EXPECT_FALSE(rounds.run());
    stopper.join();
    EXPECT_TRUE(rounds.stopped());
    EXPECT_EQ(rounds.roundsRun(), 0);
    EXPECT_EQ(warmUps.load(), 4);
}
