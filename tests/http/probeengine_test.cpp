// ProbeEngine against real opsdeck-sim processes on loopback: connection
// reuse read from curl's counters, the stale keep-alive case, timeouts,
// cancellation, API keys and proxies that must not come from the environment.
#include "probeengine.h"
#include "probetestsupport.h"
#include "simprocess.h"
#include "testsupport.h"
#include "tinyproxy.h"

#include <QRegularExpression>
#include <QSet>
#include <atomic>
#include <gtest/gtest.h>
#include <httplib.h>
#include <mutex>
#include <set>
#include <thread>

using namespace opsdeck::probes;
using namespace opsdeck::test;
using namespace std::chrono_literals;

TEST(ProbeEngine, FreshProbesOpenANewConnectionEachTime)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(simArgs(QStringLiteral("engine")))) << sim.errorText().toStdString();
    ProbeEngine engine;
    QSet<int> ports;
    for (int i = 0; i < 4; ++i) {
        const ProbeResult r =
            engine.run(getProbe(sim.url(), QStringLiteral("/health"), ConnectionMode::Fresh));
        EXPECT_TRUE(r.ok()) << r.error.toStdString();
        EXPECT_EQ(r.status, 200);
        EXPECT_FALSE(r.connectionReused);
        EXPECT_EQ(r.newConnections, 1);
        EXPECT_GT(r.localPort, 0);
        EXPECT_GT(r.connectMs, 0);
        EXPECT_GE(r.totalMs, r.ttfbMs);
        EXPECT_GT(r.startedAtMs, 1'700'000'000'000LL);
        ports.insert(r.localPort);
    }
    EXPECT_EQ(ports.size(), 4);
}

TEST(ProbeEngine, ReusedProbesKeepOneConnectionAndConnectInZeroMs)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(simArgs(QStringLiteral("engine")))) << sim.errorText().toStdString();
    ProbeEngine engine;
    const auto probe = getProbe(sim.url(), QStringLiteral("/health"), ConnectionMode::Reused);
    const ProbeResult warmUp = engine.run(probe);
    ASSERT_TRUE(warmUp.ok()) << warmUp.error.toStdString();
    EXPECT_FALSE(warmUp.connectionReused);
    EXPECT_EQ(warmUp.newConnections, 1);
    EXPECT_TRUE(warmUp.note.startsWith(QStringLiteral("warm-up"))) << warmUp.note.toStdString();
    // A Fresh probe in between must neither take nor spoil the kept connection.
    const ProbeResult fresh =
        engine.run(getProbe(sim.url(), QStringLiteral("/health"), ConnectionMode::Fresh));
    EXPECT_NE(fresh.localPort, warmUp.localPort);
    for (int i = 0; i < 3; ++i) {
        idleFor(300ms);
        const ProbeResult r = engine.run(probe);
        ASSERT_TRUE(r.ok()) << r.error.toStdString();
        EXPECT_TRUE(r.connectionReused);
        EXPECT_EQ(r.newConnections, 0);
        EXPECT_EQ(r.localPort, warmUp.localPort);
        EXPECT_EQ(r.connectMs, 0.0);
        EXPECT_FALSE(r.staleKeepAlive);
    }
}

TEST(ProbeEngine, AConnectionTheServerClosedWhileIdleIsAStaleKeepAliveNotAFailure)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(simArgs(QStringLiteral("engine"),
                                  {QStringLiteral("--keep-alive-timeout"), QStringLiteral("1")})))
        << sim.errorText().toStdString();
    ProbeEngine engine;
    const auto probe = getProbe(sim.url(), QStringLiteral("/health"), ConnectionMode::Reused);
    const ProbeResult warmUp = engine.run(probe);
    ASSERT_TRUE(warmUp.ok());
    idleFor(300ms); // within the server's 1 s: reused
    const ProbeResult reused = engine.run(probe);
    ASSERT_TRUE(reused.connectionReused);
    idleFor(2000ms); // past it: the sim closes the connection
    const ProbeResult stale = engine.run(probe);
    EXPECT_TRUE(stale.ok()) << stale.error.toStdString(); // the service is not down
    EXPECT_EQ(stale.status, 200);
    EXPECT_TRUE(stale.staleKeepAlive);
    EXPECT_FALSE(stale.connectionReused);
    EXPECT_EQ(stale.newConnections, 1);
    EXPECT_NE(stale.localPort, warmUp.localPort);
    EXPECT_GE(stale.staleIdleS, 1.9);
    EXPECT_LT(stale.staleIdleS, 5.0);
    EXPECT_TRUE(stale.note.contains(QStringLiteral("stale keep-alive replaced")))
        << stale.note.toStdString();
    // Reuse worked after 0.3 s and failed after 2 s: the window is bracketed.
    EXPECT_TRUE(stale.note.contains(
        QRegularExpression(QStringLiteral(R"(idle window is between 0\.[3-5] and 2\.[0-5] s)"))))
        << stale.note.toStdString();
    // The replacement connection is the one kept from now on.
    idleFor(300ms);
    const ProbeResult after = engine.run(probe);
    EXPECT_TRUE(after.connectionReused);
    EXPECT_EQ(after.localPort, stale.localPort);
}

TEST(ProbeEngine, AStalledReusedConnectionTimesOut)
{
    SimProcess engineSim;
    ASSERT_TRUE(engineSim.start(simArgs(QStringLiteral("engine"))));
    SimProcess proxy;
    ASSERT_TRUE(proxy.start(simArgs(QStringLiteral("proxy"),
                                    {QStringLiteral("--upstream"), engineSim.url(),
                                     QStringLiteral("--fault"), QStringLiteral("reused-stall=5")})))
        << proxy.errorText().toStdString();
    ProbeEngine engine;
    auto probe = getProbe(proxy.url(), QStringLiteral("/v1/models"), ConnectionMode::Reused);
    probe.timeoutMs = 800;
    const ProbeResult warmUp = engine.run(probe);
    ASSERT_TRUE(warmUp.ok()) << warmUp.error.toStdString();
    const ProbeResult stalled = engine.run(probe);
    EXPECT_TRUE(stalled.timedOut);
    EXPECT_FALSE(stalled.ok());
    EXPECT_EQ(stalled.status, 0);
    EXPECT_FALSE(stalled.error.isEmpty());
    EXPECT_FALSE(stalled.staleKeepAlive);
    EXPECT_TRUE(stalled.note.contains(QStringLiteral("timed out"))) << stalled.note.toStdString();
    // A fresh connection through the same proxy passes at once.
    probe.mode = ConnectionMode::Fresh;
    EXPECT_TRUE(engine.run(probe).ok());
}

TEST(ProbeEngine, CancelAllEndsRunningAndQueuedProbes)
{
    SimProcess engineSim;
    ASSERT_TRUE(engineSim.start(simArgs(QStringLiteral("engine"))));
    SimProcess proxy;
    ASSERT_TRUE(proxy.start(simArgs(
        QStringLiteral("proxy"), {QStringLiteral("--upstream"), engineSim.url(),
                                  QStringLiteral("--fault"), QStringLiteral("reused-stall=30")})));
    ProbeEngine engine(ProbeEngine::Limits{1, 600});
    auto probe = getProbe(proxy.url(), QStringLiteral("/v1/models"), ConnectionMode::Reused);
    probe.timeoutMs = 60'000;
    ASSERT_TRUE(engine.run(probe).ok());
    std::mutex mutex;
    std::vector<ProbeResult> results;
    auto collect = [&](const ProbeResult &r) {
        std::lock_guard lock(mutex);
        results.push_back(r);
    };
    const quint64 stalled = engine.submit(probe, collect); // hangs 30 s in the proxy
    const quint64 queued = engine.submit(
        getProbe(proxy.url(), QStringLiteral("/health"), ConnectionMode::Fresh), collect);
    EXPECT_NE(stalled, queued);
    // The stalled one is in flight (the queued one waits for the single slot).
    EXPECT_FALSE(waitUntil(
        [&] {
            std::lock_guard lock(mutex);
            return !results.empty();
        },
        300ms));
    engine.cancelAll();
    ASSERT_TRUE(waitUntil(
        [&] {
            std::lock_guard lock(mutex);
            return results.size() == 2;
        },
        3s));
    for (const ProbeResult &r : results) {
        EXPECT_TRUE(r.cancelled);
        EXPECT_FALSE(r.ok());
        EXPECT_FALSE(r.timedOut);
    }
    // The cancelled transfer took its connection with it: the next Reused
    // probe is a warm-up, not a "stale keep-alive".
    const ProbeResult again = engine.run(probe);
    EXPECT_TRUE(again.ok()) << again.error.toStdString();
    EXPECT_FALSE(again.staleKeepAlive);
    EXPECT_TRUE(again.note.startsWith(QStringLiteral("warm-up"))) << again.note.toStdString();
    // The engine still works after a cancelAll.
    EXPECT_TRUE(
        engine.run(getProbe(engineSim.url(), QStringLiteral("/health"), ConnectionMode::Fresh))
            .ok());
}

TEST(ProbeEngine, TheApiKeyIsSentAsBearerAndAnswersLongerThanTheCapFail)
{
    SimProcess sim;
    const QByteArray key = "sk-probe-test-4711";
    ASSERT_TRUE(sim.start(simArgs(QStringLiteral("engine"),
                                  {QStringLiteral("--api-key"), QString::fromLatin1(key)})));
    ProbeEngine engine;
    auto probe = getProbe(sim.url(), QStringLiteral("/v1/models"), ConnectionMode::Fresh);
    const ProbeResult without = engine.run(probe);
    EXPECT_EQ(without.status, 401);
    EXPECT_FALSE(without.ok());
    EXPECT_EQ(without.note, QStringLiteral("HTTP 401 Unauthorized"));
    probe.apiKey = key;
    const ProbeResult with = engine.run(probe);
    EXPECT_EQ(with.status, 200);
    EXPECT_TRUE(with.ok());
    EXPECT_FALSE(with.body.contains(key));
    probe.maxBytes = 10;
    const ProbeResult cut = engine.run(probe);
    EXPECT_FALSE(cut.ok());
    EXPECT_EQ(cut.error, QStringLiteral("answer longer than 10 bytes"));
}

TEST(ProbeEngine, AResultCarriesTheReasonTheContentTypeAndWhyAConnectFailed)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(simArgs(QStringLiteral("engine"), {QStringLiteral("--api-key"),
                                                             QStringLiteral("sk-reason-test")})));
    ProbeEngine engine;
    const ProbeResult unauthorized =
        engine.run(getProbe(sim.url(), QStringLiteral("/v1/models"), ConnectionMode::Fresh));
    EXPECT_EQ(unauthorized.status, 401);
    EXPECT_EQ(unauthorized.reason, QStringLiteral("Unauthorized"));
    EXPECT_TRUE(unauthorized.connectError.isEmpty());

    const ProbeResult metrics =
        engine.run(getProbe(sim.url(), QStringLiteral("/metrics"), ConnectionMode::Fresh));
    ASSERT_EQ(metrics.status, 200) << metrics.error.toStdString();
    EXPECT_EQ(metrics.reason, QStringLiteral("OK"));
    EXPECT_TRUE(metrics.contentType.startsWith("text/plain; version=0.0.4"))
        << metrics.contentType.toStdString();

    // A declared length over the cap is refused before its body is read.
    auto capped = getProbe(sim.url(), QStringLiteral("/metrics"), ConnectionMode::Fresh);
    capped.maxBytes = 100;
    const ProbeResult cut = engine.run(capped);
    EXPECT_TRUE(cut.tooLarge);
    EXPECT_FALSE(cut.ok());
    EXPECT_EQ(cut.error, QStringLiteral("answer longer than 100 bytes"));
    EXPECT_TRUE(cut.body.isEmpty());

    const ProbeResult refused =
        engine.run(getProbe(QStringLiteral("http://127.0.0.1:%1").arg(freeTcpPort()),
                            QStringLiteral("/health"), ConnectionMode::Fresh));
    EXPECT_EQ(refused.status, 0);
    EXPECT_EQ(refused.connectError, QStringLiteral("Connection refused"));
    EXPECT_FALSE(refused.error.isEmpty());
    EXPECT_FALSE(refused.tlsFailed);
}

TEST(ProbeEngine, AFailureSaysWhyInTheServersOwnWords)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(simArgs(QStringLiteral("engine"),
                                  {QStringLiteral("--api-key"), QStringLiteral("sk-words-test")})));
    // A proxy whose upstream listens nowhere answers 502 and says why in its body.
    SimProcess proxy;
    ASSERT_TRUE(
        proxy.start({QStringLiteral("--role"), QStringLiteral("proxy"), QStringLiteral("--port"),
                     QStringLiteral("0"), QStringLiteral("--upstream"),
                     QStringLiteral("http://127.0.0.1:%1").arg(freeTcpPort())}))
        << proxy.errorText().toStdString();
    ProbeEngine engine;
    const ProbeResult ok =
        engine.run(getProbe(sim.url(), QStringLiteral("/health"), ConnectionMode::Fresh));
    ASSERT_TRUE(ok.ok()) << ok.error.toStdString();
    EXPECT_TRUE(failureOf(ok).isEmpty());
    // SGLang's API-key check says {"error":"Unauthorized"} under "401 Unauthorized": said once.
    const ProbeResult unauthorized =
        engine.run(getProbe(sim.url(), QStringLiteral("/v1/models"), ConnectionMode::Fresh));
    EXPECT_EQ(failureOf(unauthorized), QStringLiteral("HTTP 401 Unauthorized"));
    const ProbeResult badGateway =
        engine.run(getProbe(proxy.url(), QStringLiteral("/health"), ConnectionMode::Fresh));
    EXPECT_EQ(badGateway.status, 502);
    EXPECT_EQ(failureOf(badGateway),
              QStringLiteral("HTTP 502 Bad Gateway: upstream unavailable: Connection"));
    // curl's own words win over a status that never came.
    const ProbeResult refused =
        engine.run(getProbe(QStringLiteral("http://127.0.0.1:%1").arg(freeTcpPort()),
                            QStringLiteral("/health"), ConnectionMode::Fresh));
    EXPECT_EQ(failureOf(refused), refused.error);
    EXPECT_FALSE(refused.error.isEmpty());
}

// Servers that echo the header they refused, or send a large error page.
TEST(ProbeEngine, AFailureNeverCarriesTheApiKeyAndKeepsItsStatusWhenCut)
{
    httplib::Server server;
    server.Get("/v1/models", [](const httplib::Request &req, httplib::Response &res) {
        res.status = 401;
        res.set_content(R"({"error":{"message":"Incorrect API key provided: )" +
                            req.get_header_value("Authorization") + R"("}})",
                        "application/json");
    });
    server.Get("/large", [](const httplib::Request &, httplib::Response &res) {
        res.status = 500;
        res.set_content(R"({"message":")" + std::string(2000, 'x') + R"("})", "application/json");
    });
    const int port = server.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port, 0);
    std::thread serving([&server] { server.listen_after_bind(); });
    const QString base = QStringLiteral("http://127.0.0.1:%1").arg(port);
    ProbeEngine engine;
    auto echoing = getProbe(base, QStringLiteral("/v1/models"), ConnectionMode::Fresh);
    echoing.apiKey = "sk-echoed-5150";
    const ProbeResult refused = engine.run(echoing);
    auto large = getProbe(base, QStringLiteral("/large"), ConnectionMode::Fresh);
    large.maxBytes = 100;
    const ProbeResult cut = engine.run(large);
    server.stop();
    serving.join();
    EXPECT_EQ(failureOf(refused), QStringLiteral("HTTP 401 Unauthorized: Incorrect API key "
                                                 "provided: Bearer [API key]"));
    EXPECT_EQ(refused.note, failureOf(refused));
    EXPECT_FALSE(refused.body.contains("sk-echoed-5150"));
    EXPECT_EQ(cut.status, 500);
    EXPECT_EQ(failureOf(cut),
              QStringLiteral("HTTP 500 Internal Server Error (answer longer than 100 bytes)"));
}

TEST(ProbeEngine, ProxiesComeFromTheRequestNeverFromTheEnvironment)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(simArgs(QStringLiteral("engine"))));
    const QByteArray dead = "http://127.0.0.1:" + QByteArray::number(freeTcpPort());
    const QList<const char *> names = {"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"};
    for (const char *name : names)
        qputenv(name, dead);
    ProbeEngine engine;
    const ProbeResult direct =
        engine.run(getProbe(sim.url(), QStringLiteral("/health"), ConnectionMode::Fresh));
    // The same dead proxy given by the request (the inventory path) is used: it fails.
    auto viaDead = getProbe(sim.url(), QStringLiteral("/health"), ConnectionMode::Fresh);
    viaDead.proxy = QUrl(QString::fromLatin1(dead));
    const ProbeResult proxied = engine.run(viaDead);
    for (const char *name : names)
        qunsetenv(name);
    EXPECT_TRUE(direct.ok()) << direct.error.toStdString();
    EXPECT_FALSE(proxied.ok());
    EXPECT_EQ(proxied.status, 0);
    EXPECT_FALSE(proxied.error.isEmpty());
}

TEST(ProbeEngine, APathThroughTheInventorysProxyGoesThroughIt)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(simArgs(QStringLiteral("engine")))) << sim.errorText().toStdString();
    Tinyproxy proxy;
    ASSERT_TRUE(proxy.start()) << "tinyproxy did not start";
    ProbeEngine engine;
    ProbeRequest request = getProbe(sim.url(), QStringLiteral("/v1/models"), ConnectionMode::Fresh);
    request.proxy = proxy.url();
    const ProbeResult r = engine.run(request);
    ASSERT_TRUE(r.ok()) << r.error.toStdString();
    EXPECT_TRUE(r.body.contains("Qwen/Qwen3-8B"));
    ASSERT_TRUE(waitUntil([&] { return proxy.log().contains("/v1/models"); }, 5s))
        << "tinyproxy logged no request:\n"
        << proxy.log().toStdString();
}

TEST(ProbeEngine, ProbesSubmittedInABatchAllRunAndNestedBatchesAreOne)
{
    SimProcess sim;
    ASSERT_TRUE(sim.start(simArgs(QStringLiteral("engine")))) << sim.errorText().toStdString();
    ProbeEngine engine;
    std::mutex mutex;
    std::vector<ProbeResult> results;
    auto collect = [&](const ProbeResult &r) {
        std::lock_guard lock(mutex);
        results.push_back(r);
    };
    std::set<quint64> ids;
    {
        const ProbeEngine::Batch outer(engine);
        for (int i = 0; i < 3; ++i)
            ids.insert(engine.submit(
                getProbe(sim.url(), QStringLiteral("/health"), ConnectionMode::Fresh), collect));
        {
            const ProbeEngine::Batch inner(engine); // ends without waking: the outer one does
            for (int i = 0; i < 3; ++i)
                ids.insert(engine.submit(
                    getProbe(sim.url(), QStringLiteral("/metrics"), ConnectionMode::Fresh),
                    collect));
        }
        // Another thread's submission is not held back by this thread's batch.
        ProbeResult other;
        std::thread([&] {
            other =
                engine.run(getProbe(sim.url(), QStringLiteral("/health"), ConnectionMode::Fresh));
        }).join();
        EXPECT_TRUE(other.ok()) << other.error.toStdString();
    }
    EXPECT_EQ(ids.size(), 6u);
    ASSERT_TRUE(waitUntil(
        [&] {
            std::lock_guard lock(mutex);
            return results.size() == 6;
        },
        10s));
    std::set<quint64> done;
    for (const ProbeResult &r : results) {
        EXPECT_TRUE(r.ok()) << r.error.toStdString();
        EXPECT_EQ(r.status, 200);
        done.insert(r.id);
    }
    EXPECT_EQ(done, ids);
}
