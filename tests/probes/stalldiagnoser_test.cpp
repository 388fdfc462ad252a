// StallDiagnoser on synthetic probe results: which hop a keep-alive stall is
// placed on, and when no stall is declared at all.
#include "stalldiagnoser.h"

#include <QDateTime>
#include <gtest/gtest.h>

using namespace opsdeck;
using namespace opsdeck::probes;
using namespace Qt::StringLiterals;

namespace {

ProbePath path(const QString &name, const QString &entry, inventory::Role role, int depth)
{
    ProbePath p;
    p.name = name;
    p.entryService = entry;
    p.entryRole = role;
    p.depth = depth;
    return p;
}

/// proxy-0 → router-0 → decode-0 / prefill-0, outermost first (as probePaths()).
QVector<ProbePath> pdPaths()
{
    return {path(u"via proxy"_s, u"proxy-0"_s, inventory::Role::Proxy, 0),
            path(u"router direct"_s, u"router-0"_s, inventory::Role::Router, 1),
            path(u"decode direct"_s, u"decode-0"_s, inventory::Role::Decode, 2),
            path(u"prefill direct"_s, u"prefill-0"_s, inventory::Role::Prefill, 2)};
}

// 20:14:00 UTC on 2026-11-30, the base of the synthetic clock.
constexpr qint64 kT0 = 1796069640000;

ProbeResult fresh(double totalMs, int round)
{
    ProbeResult r;
    r.mode = ConnectionMode::Fresh;
    r.status = 200;
    r.totalMs = totalMs;
    r.newConnections = 1;
    r.startedAtMs = kT0 + round * 10'000;
    return r;
}

ProbeResult reused(double totalMs, int round)
{
    ProbeResult r = fresh(totalMs, round);
    r.mode = ConnectionMode::Reused;
    r.connectionReused = true;
    r.newConnections = 0;
    return r;
}

ProbeResult reusedTimeout(double totalMs, int round)
{
    ProbeResult r = reused(totalMs, round);
    r.status = 0;
    r.timedOut = true;
    r.error = u"Operation timed out after %1 milliseconds"_s.arg(qRound(totalMs));
    return r;
}

ProbeResult reusedStale(double totalMs, int round)
{
    ProbeResult r = reused(totalMs, round);
    r.connectionReused = false;
    r.newConnections = 1;
    r.staleKeepAlive = true;
    r.staleIdleS = 10;
    return r;
}

/// Feeds one round: per path {fresh ms, reused ms}; a negative reused ms is a timeout at -ms.
void feed(StallDiagnoser &d, int round, const QVector<std::pair<double, double>> &perPath)
{
    for (int i = 0; i < perPath.size(); ++i) {
        const auto [f, r] = perPath.at(i);
        d.add(round, i, fresh(f, round), r < 0 ? reusedTimeout(-r, round) : reused(r, round));
    }
}

} // namespace

TEST(StallDiagnoser, AStallOnlyThroughTheProxyIsTheProxys)
{
    StallDiagnoser d(pdPaths());
    feed(d, 1, {{3, 5003}, {3, 2}, {2, 1}, {2, 1}});
    feed(d, 2, {{3, 5004}, {3, 2}, {2, 1}, {2, 1}});
    EXPECT_FALSE(d.diagnosis()) << "two rounds are not yet three";
    feed(d, 3, {{3, 5002}, {3, 2}, {2, 1}, {2, 1}});
    const auto diagnosis = d.diagnosis();
    ASSERT_TRUE(diagnosis);
    EXPECT_EQ(diagnosis->hop, u"proxy-0"_s);
    EXPECT_EQ(diagnosis->roleName(), u"proxy"_s);
    EXPECT_EQ(diagnosis->pathName, u"via proxy"_s);
    EXPECT_EQ(diagnosis->rounds, (QVector<int>{1, 2, 3}));
    EXPECT_EQ(diagnosis->firstStallMs, kT0 + 10'000);
    EXPECT_EQ(diagnosis->lastStallMs, kT0 + 30'000);
    EXPECT_TRUE(diagnosis->evidence.startsWith(u"reused via proxy (proxy-0), rounds 1-3 from "_s))
        << diagnosis->evidence.toStdString();
    EXPECT_TRUE(diagnosis->evidence.contains(u": 5003 ms, 5004 ms, 5002 ms; fresh via proxy: "
                                             "3.0 ms, 3.0 ms, 3.0 ms"_s))
        << diagnosis->evidence.toStdString();
    EXPECT_TRUE(diagnosis->evidence.contains(
        u"router direct (router-0): reused 2.0 ms, 2.0 ms, 2.0 ms, fresh 3.0 ms, 3.0 ms, 3.0 ms"_s))
        << diagnosis->evidence.toStdString();
    EXPECT_TRUE(diagnosis->evidence.contains(u"decode direct (decode-0): reused 1.0 ms"_s));
    EXPECT_FALSE(diagnosis->evidence.contains(u"not normal"_s));
    EXPECT_EQ(diagnosis->caution,
              u"The engines answer fresh requests at once: this is the connection layer at "
              "proxy-0; do not change engine knobs for it."_s);
    EXPECT_EQ(diagnosis->headline(), u"keep-alive stall at proxy-0 (proxy): reused connections "
                                     "stall, fresh ones answer"_s);
}

TEST(StallDiagnoser, IdleDecodeNumbersMakeTheCautionSayTheEnginesAreIdle)
{
    StallDiagnoser idle(pdPaths());
    StallDiagnoser busy(pdPaths());
    for (int round = 1; round <= 3; ++round) {
        feed(idle, round, {{3, 5003}, {3, 2}, {2, 1}, {2, 1}});
        feed(busy, round, {{3, 5003}, {3, 2}, {2, 1}, {2, 1}});
        idle.addDecodeLoad(round, 0, 0);
        busy.addDecodeLoad(round, round == 2 ? 12 : 3, round == 3 ? 4 : 0);
    }
    busy.addDecodeLoad(4, 99, 99); // not a stalled round: not evidence
    const auto quiet = idle.diagnosis();
    ASSERT_TRUE(quiet);
    EXPECT_EQ(quiet->decodeRunningMax, 0);
    EXPECT_EQ(quiet->decodeWaitingMax, 0);
    EXPECT_EQ(quiet->caution,
              u"The engines are idle (decode running 0, waiting 0 in the stalled rounds) and "
              "answer fresh requests at once: this is the connection layer at proxy-0; do not "
              "change engine knobs for it."_s);
    const auto loaded = busy.diagnosis();
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->decodeRunningMax, 12);
    EXPECT_EQ(loaded->decodeWaitingMax, 4);
    EXPECT_EQ(loaded->caution,
              u"The engines answer fresh requests at once (decode running up to 12, waiting up "
              "to 4 in the stalled rounds): this is the connection layer at proxy-0; do not "
              "change engine knobs for it."_s);
}

TEST(StallDiagnoser, AStallTheRouterShowsTooIsTheRouters)
{
    StallDiagnoser d(pdPaths());
    for (int round = 1; round <= 3; ++round)
        feed(d, round, {{3000, 3004}, {3, 3002}, {2, 1}, {2, 1}});
    const auto diagnosis = d.diagnosis();
    ASSERT_TRUE(diagnosis);
    EXPECT_EQ(diagnosis->hop, u"router-0"_s);
    EXPECT_EQ(diagnosis->role, inventory::Role::Router);
    // The proxy path's fresh probes stall too (the proxy reuses its upstream
    // connections), so it is not "stalling" by itself; the router's is.
    EXPECT_FALSE(d.stallDeclared(0));
    EXPECT_TRUE(d.stallDeclared(1));
    EXPECT_TRUE(diagnosis->evidence.startsWith(u"reused router direct (router-0)"_s));
    // Every path is evidence, the pooling proxy's too, and nothing claims that
    // fresh connections answer for its clients.
    EXPECT_TRUE(diagnosis->evidence.contains(u"via proxy (proxy-0): reused 3004 ms"_s))
        << diagnosis->evidence.toStdString();
    EXPECT_EQ(diagnosis->poolingProxies, QStringList{u"proxy-0"_s});
    EXPECT_EQ(diagnosis->headline(),
              u"keep-alive stall at router-0 (router): reused connections stall; fresh ones "
              "answer there, but through proxy-0, which pools upstream connections, new ones "
              "stall too"_s);
    EXPECT_TRUE(diagnosis->caution.contains(u"proxy-0 pools its upstream connections"_s));
}

TEST(StallDiagnoser, APoolingProxyWhoseFreshProbesTimeOutIsNamedWhateverItsReusedDid)
{
    StallDiagnoser d(pdPaths());
    // nginx in front of a router that stalls kept connections: through nginx
    // a fresh connection answers once (a new upstream connection), then times out.
    for (int round = 1; round <= 3; ++round) {
        ProbeResult viaNginx = round == 1 ? fresh(3, round) : reusedTimeout(15000, round);
        viaNginx.mode = ConnectionMode::Fresh;
        d.add(round, 0, viaNginx, reusedTimeout(15000, round));
        d.add(round, 1, fresh(3, round), reusedTimeout(15000, round));
        d.add(round, 2, fresh(2, round), reused(1, round));
        d.add(round, 3, fresh(2, round), reused(1, round));
    }
    const auto diagnosis = d.diagnosis();
    ASSERT_TRUE(diagnosis);
    EXPECT_EQ(diagnosis->hop, u"router-0"_s);
    EXPECT_EQ(diagnosis->poolingProxies, QStringList{u"proxy-0"_s});
    EXPECT_FALSE(diagnosis->headline().endsWith(u"fresh ones answer"_s));
    EXPECT_TRUE(diagnosis->evidence.contains(u"via proxy (proxy-0)"_s));
}

TEST(StallDiagnoser, TheProxyAndTheRouterBothStallingPointsAtTheRouter)
{
    StallDiagnoser d(pdPaths());
    for (int round = 1; round <= 3; ++round)
        feed(d, round, {{3, 3004}, {3, 3002}, {2, 1}, {2, 1}});
    ASSERT_TRUE(d.stallDeclared(0));
    ASSERT_TRUE(d.diagnosis());
    EXPECT_EQ(d.diagnosis()->hop, u"router-0"_s);
}

TEST(StallDiagnoser, EverythingFineIsNoDiagnosis)
{
    StallDiagnoser d(pdPaths());
    for (int round = 1; round <= 10; ++round)
        feed(d, round, {{3, 2}, {3, 2}, {2, 1}, {2, 1}});
    EXPECT_FALSE(d.diagnosis());
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(d.samples(i).size(), 10);
        EXPECT_EQ(d.samples(i).last().verdict, StallDiagnoser::Verdict::Clear);
    }
}

TEST(StallDiagnoser, TwoStallingRoundsOutOfThreeAreNoStall)
{
    StallDiagnoser d(pdPaths());
    feed(d, 1, {{3, 5000}, {3, 2}, {2, 1}, {2, 1}});
    feed(d, 2, {{3, 5000}, {3, 2}, {2, 1}, {2, 1}});
    feed(d, 3, {{3, 4}, {3, 2}, {2, 1}, {2, 1}});
    EXPECT_EQ(d.currentStreak(0), 0);
    feed(d, 4, {{3, 5000}, {3, 2}, {2, 1}, {2, 1}});
    feed(d, 5, {{3, 5000}, {3, 2}, {2, 1}, {2, 1}});
    EXPECT_EQ(d.currentStreak(0), 2);
    EXPECT_FALSE(d.diagnosis());
    // A third in a row completes it: rounds 4-6, not the broken 1-2.
    feed(d, 6, {{3, 5000}, {3, 2}, {2, 1}, {2, 1}});
    ASSERT_TRUE(d.diagnosis());
    EXPECT_EQ(d.diagnosis()->rounds, (QVector<int>{4, 5, 6}));
}

TEST(StallDiagnoser, TheRoundCountIsASetting)
{
    StallDiagnoser::Settings settings;
    settings.consecutiveRounds = 2;
    StallDiagnoser d(pdPaths(), settings);
    feed(d, 1, {{3, 5000}, {3, 2}, {2, 1}, {2, 1}});
    EXPECT_FALSE(d.diagnosis());
    feed(d, 2, {{3, 5000}, {3, 2}, {2, 1}, {2, 1}});
    EXPECT_TRUE(d.diagnosis());
}

TEST(StallDiagnoser, ReusedTimeoutsCountAsStallsAndAreTimedInTheEvidence)
{
    StallDiagnoser d(pdPaths());
    for (int round = 1; round <= 3; ++round)
        feed(d, round, {{3, -2000}, {3, 2}, {2, 1}, {2, 1}});
    const auto diagnosis = d.diagnosis();
    ASSERT_TRUE(diagnosis);
    EXPECT_EQ(diagnosis->hop, u"proxy-0"_s);
    const QString t1 = QDateTime::fromMSecsSinceEpoch(kT0 + 10'000).toString(u"HH:mm:ss"_s);
    const QString t3 = QDateTime::fromMSecsSinceEpoch(kT0 + 30'000).toString(u"HH:mm:ss"_s);
    EXPECT_TRUE(diagnosis->evidence.contains(
        u"> 2.0 s (timed out), > 2.0 s (timed out), > 2.0 s (timed out)"_s))
        << diagnosis->evidence.toStdString();
    EXPECT_TRUE(diagnosis->evidence.contains(u"(timeouts at %1, "_s.arg(t1)));
    EXPECT_TRUE(diagnosis->evidence.contains(u", %1)"_s.arg(t3)));
}

TEST(StallDiagnoser, StaleKeepAliveResultsAreNeitherStallsNorClear)
{
    StallDiagnoser d(pdPaths());
    const QVector<ProbePath> paths = pdPaths();
    // Round 2 and 4: the server closed the idle connection; its replacement
    // is fast but is no reused sample. The run of real stalls goes on.
    d.add(1, 0, fresh(3, 1), reused(5000, 1));
    EXPECT_EQ(d.add(2, 0, fresh(3, 2), reusedStale(4, 2)), StallDiagnoser::Verdict::Inconclusive);
    EXPECT_TRUE(d.samples(0).last().reason.startsWith(u"stale keep-alive replaced"_s));
    d.add(3, 0, fresh(3, 3), reused(5000, 3));
    EXPECT_EQ(d.currentStreak(0), 2);
    d.add(4, 0, fresh(3, 4), reusedStale(4, 4));
    EXPECT_FALSE(d.diagnosis()) << "stale rounds must not count as stalls";
    d.add(5, 0, fresh(3, 5), reused(5000, 5));
    ASSERT_TRUE(d.diagnosis());
    EXPECT_EQ(d.diagnosis()->rounds, (QVector<int>{1, 3, 5}));

    // A stale replacement that took long (a slow new connection) is no stall either.
    StallDiagnoser onlyStale(paths);
    for (int round = 1; round <= 5; ++round)
        onlyStale.add(round, 0, fresh(3, round), reusedStale(5000, round));
    EXPECT_FALSE(onlyStale.diagnosis());
}

TEST(StallDiagnoser, AnEngineStallingDirectlyIsThatEngines)
{
    StallDiagnoser d(pdPaths());
    // The decode's own keep-alive stalls: everything through it stalls too.
    for (int round = 1; round <= 3; ++round)
        feed(d, round, {{3, 4000}, {3, 4000}, {2, 4000}, {2, 1}});
    const auto diagnosis = d.diagnosis();
    ASSERT_TRUE(diagnosis);
    EXPECT_EQ(diagnosis->hop, u"decode-0"_s);
    EXPECT_EQ(diagnosis->role, inventory::Role::Decode);
    EXPECT_EQ(diagnosis->caution,
              u"decode-0 answers fresh requests at once: this is the connection layer "
              "(keep-alive) of decode-0, not its compute; do not change engine knobs for it."_s);
    // Every path is evidence: its sibling at the same depth answers.
    EXPECT_TRUE(diagnosis->evidence.contains(u"prefill direct (prefill-0): reused 1.0 ms"_s))
        << diagnosis->evidence.toStdString();
}

TEST(StallDiagnoser, AFailingFreshProbeBreaksTheRunAndIsNoStall)
{
    StallDiagnoser d(pdPaths());
    d.add(1, 0, fresh(3, 1), reused(5000, 1));
    d.add(2, 0, fresh(3, 2), reused(5000, 2));
    ProbeResult down = fresh(2000, 3);
    down.status = 0;
    down.timedOut = true;
    down.error = u"Operation timed out"_s;
    EXPECT_EQ(d.add(3, 0, down, reusedTimeout(2000, 3)), StallDiagnoser::Verdict::Failed);
    d.add(4, 0, fresh(3, 4), reused(5000, 4));
    EXPECT_FALSE(d.diagnosis()) << "a hop that answers nothing is down, not stalling";
}

TEST(StallDiagnoser, DeeperPathsThatDidNotAnswerAreCalledOutInTheEvidence)
{
    StallDiagnoser d(pdPaths());
    ProbeResult refused = fresh(0.2, 2);
    refused.status = 0;
    refused.error = u"Connection refused"_s;
    for (int round = 1; round <= 3; ++round) {
        d.add(round, 0, fresh(3, round), reused(5000, round));
        d.add(round, 1, round == 2 ? refused : fresh(3, round), reused(2, round));
    }
    const auto diagnosis = d.diagnosis();
    ASSERT_TRUE(diagnosis);
    EXPECT_TRUE(diagnosis->evidence.contains(
        u"(not normal: round 2 failed: fresh probe did not answer: Connection refused)"_s))
        << diagnosis->evidence.toStdString();
    EXPECT_TRUE(
        diagnosis->evidence.contains(u"decode direct (decode-0): no probe in those rounds"_s));
}

TEST(StallDiagnoser, ClassifyNeedsTenTimesAndAHundredMillisecondsMore)
{
    const StallDiagnoser::Settings settings;
    using V = StallDiagnoser::Verdict;
    // Loopback jitter: 13x slower but only 3.7 ms more.
    EXPECT_EQ(StallDiagnoser::classify(fresh(0.3, 1), reused(4, 1), settings), V::Clear);
    EXPECT_EQ(StallDiagnoser::classify(fresh(30, 1), reused(299, 1), settings), V::Clear);
    EXPECT_EQ(StallDiagnoser::classify(fresh(30, 1), reused(300, 1), settings), V::Stalling);
    EXPECT_EQ(StallDiagnoser::classify(fresh(3, 1), reused(102, 1), settings), V::Clear);
    EXPECT_EQ(StallDiagnoser::classify(fresh(3, 1), reused(103, 1), settings), V::Stalling);
    // A reused probe that found no kept connection is a warm-up, not a sample.
    ProbeResult warmUp = reused(5000, 1);
    warmUp.connectionReused = false;
    warmUp.newConnections = 1;
    EXPECT_EQ(StallDiagnoser::classify(fresh(3, 1), warmUp, settings), V::Inconclusive);
    ProbeResult http500 = reused(4, 1);
    http500.status = 500;
    EXPECT_EQ(StallDiagnoser::classify(fresh(3, 1), http500, settings), V::Failed);
    ProbeResult cancelled = reused(5000, 1);
    cancelled.cancelled = true;
    EXPECT_EQ(StallDiagnoser::classify(fresh(3, 1), cancelled, settings), V::Inconclusive);
}
