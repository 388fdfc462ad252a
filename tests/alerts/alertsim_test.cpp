// The alert chain on real processes: opsdeck-sim services polled by the
// console's ServicePoller, rules evaluated on the alert thread, alerts landing
// in the AlertCenter on this (the GUI's) thread.
#include "alertcenter.h"
#include "alertthread.h"
#include "pollerthread.h"
#include "simprocess.h"
#include "testsupport.h"

#include <QDateTime>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QSignalSpy>
#include <gtest/gtest.h>

using namespace opsdeck;
using namespace std::chrono_literals;
using inventory::AlertKind;
using test::simArgs;
using test::SimProcess;
using test::waitUntil;

namespace {

inventory::Inventory inventoryOf(const QString &yaml)
{
    const inventory::LoadResult result =
        inventory::parseInventory(yaml.toUtf8(), QStringLiteral("alerts-sim.yaml"));
    EXPECT_TRUE(result.errors.isEmpty())
        << (result.errors.isEmpty() ? std::string() : result.errors[0].toString().toStdString());
    return result.inventory.value_or(inventory::Inventory{});
}

/// A router over one prefill (`prefill`: its URL, then optionally its KV
/// bootstrap port) and `decode`, checking their health every 0.2 s.
QStringList routerArgs(const QStringList &prefill, const SimProcess &decode)
{
    return QStringList{QStringLiteral("--role"),         QStringLiteral("router"),
                       QStringLiteral("--port"),         QStringLiteral("0"),
                       QStringLiteral("--metrics-port"), QStringLiteral("0"),
                       QStringLiteral("--prefill")} +
           prefill +
           QStringList{QStringLiteral("--decode"), decode.url(),
                       QStringLiteral("--health-check-interval"), QStringLiteral("0.2")};
}

/// Inventory YAML of the PD cluster `pd` (services prefill, decode, router),
/// then `alerts`.
QString pdInventory(const SimProcess &prefill, const SimProcess &decode, const SimProcess &router,
                    const QString &alerts)
{
    return QStringLiteral(
               "hosts: [{name: local, kind: local}]\n"
               "services:\n"
               "  - {name: prefill, role: prefill, host: local, url: '%1'}\n"
               "  - {name: decode, role: decode, host: local, url: '%2'}\n"
               "  - {name: router, role: router, host: local, url: '%3'}\n"
               "clusters:\n"
               "  - {name: pd, prefill: [prefill], decode: [decode], router: router}\n%4")
        .arg(prefill.url(), decode.url(), router.url(), alerts);
}

/// The console's wiring: poller thread -> alert thread -> AlertCenter.
struct Console
{
    explicit Console(const inventory::Inventory &inventory)
    {
        probes::ServicePoller::Settings settings;
        settings.intervalMs = 200;
        QMetaObject::invokeMethod(
            poller.poller(), [p = poller.poller(), settings] { p->setSettings(settings); },
            Qt::QueuedConnection);
        alerts.connectPoller(poller.poller());
        alerts.connectCenter(&center);
        alerts.setInventory(inventory);
        QObject::connect(poller.poller(), &probes::ServicePoller::statusChecked, &center,
                         [this](const probes::ServiceStatus &s) { statuses[s.name] = s; });
        poller.setServices(inventory.services);
        poller.start();
    }
    probes::PollerThread poller;
    alerts::AlertThread alerts;
    alerts::AlertCenter center;
    QHash<QString, probes::ServiceStatus> statuses;
};

} // namespace

TEST(AlertsWithSim, AStuckSchedulerRaisesSchedulerStuckOnceAndDrainingClearsIt)
{
    SimProcess engine;
    ASSERT_TRUE(engine.start(test::stuckEngineArgs())) << engine.errorText().toStdString();
    const inventory::Inventory inventory = inventoryOf(
        test::engineInventory(engine, {},
                              QStringLiteral("alerts:\n  e2e_interval_s: 0\n  rules:\n"
                                             "    - {kind: scheduler_stuck, service: engine, "
                                             "for_s: 2}\n")));
    Console console(inventory);
    QSignalSpy raised(&console.center, &alerts::AlertCenter::alertRaised);
    QSignalSpy cleared(&console.center, &alerts::AlertCenter::alertCleared);

    // Three clients whose requests the stuck scheduler queues and never runs.
    QNetworkAccessManager network;
    network.setProxy(QNetworkProxy::NoProxy);
    const qint64 sentMs = QDateTime::currentMSecsSinceEpoch();
    const QVector<QNetworkReply *> requests = test::sendChats(network, engine, 3);

    ASSERT_TRUE(waitUntil([&] { return raised.count() > 0; }, 20s));
    ASSERT_EQ(console.center.active().size(), 1);
    const alerts::Alert alert = console.center.active().first();
    EXPECT_EQ(alert.kind, AlertKind::SchedulerStuck);
    EXPECT_EQ(alert.target, QStringLiteral("engine"));
    EXPECT_TRUE(alert.text.startsWith(
        QStringLiteral("engine: 3 requests waiting and none running for 2 s")))
        << alert.text.toStdString();
    EXPECT_GE(alert.atMs - alert.sinceMs, 2000) << "for_s: 2 held before raising";
    EXPECT_GE(alert.sinceMs, sentMs) << "the condition began after the requests were sent";
    for (QNetworkReply *reply : requests)
        EXPECT_TRUE(reply->isRunning()) << "the requests never ran";

    // The clients give up: the sim drops them from the queue, waiting is 0 again.
    for (QNetworkReply *reply : requests)
        reply->abort();
    ASSERT_TRUE(waitUntil([&] { return cleared.count() > 0; }, 20s));
    EXPECT_TRUE(console.center.isEmpty());
    EXPECT_EQ(raised.count(), 1) << "raised once while stuck";
    EXPECT_EQ(cleared.count(), 1);
    EXPECT_TRUE(qvariant_cast<alerts::Alert>(cleared.at(0).at(0))
                    .text.contains(QStringLiteral("0 running, 0 waiting")));
    qDeleteAll(requests);
}

TEST(AlertsWithSim, ARouterThatAnswersHealthWithoutADecodeRaisesE2eFailing)
{
    SimProcess prefill, decode, router;
    ASSERT_TRUE(prefill.start(simArgs(QStringLiteral("prefill"))))
        << prefill.errorText().toStdString();
    ASSERT_TRUE(decode.start(simArgs(QStringLiteral("decode"))))
        << decode.errorText().toStdString();
    ASSERT_TRUE(router.start(routerArgs({prefill.url()}, decode)))
        << router.errorText().toStdString();
    const inventory::Inventory inventory = inventoryOf(
        pdInventory(prefill, decode, router,
                    QStringLiteral("alerts:\n  e2e_interval_s: 1\n  e2e_timeout_s: 5\n"
                                   "  rules:\n    - {kind: e2e_failing, cluster: pd}\n")));
    Console console(inventory);
    QSignalSpy raised(&console.center, &alerts::AlertCenter::alertRaised);
    QSignalSpy cleared(&console.center, &alerts::AlertCenter::alertCleared);
    ASSERT_EQ(console.alerts.probes().size(), 1);
    QVector<alerts::EndToEndResult> results;
    QObject::connect(console.alerts.probes().first(), &alerts::EndToEndProbe::probeFinished,
                     &console.center,
                     [&results](const alerts::EndToEndResult &r) { results.append(r); });

    // The whole path works first: a one-token completion through router, prefill and decode.
    ASSERT_TRUE(waitUntil([&] { return !results.isEmpty() && results.back().ok; }, 20s))
        << (results.isEmpty() ? std::string("no probe") : results.back().error.toStdString());
    const qsizetype goodAt = results.size() - 1;
    const alerts::EndToEndResult good = results.back();
    EXPECT_EQ(good.httpStatus, 200);
    EXPECT_EQ(good.model, QStringLiteral("Qwen/Qwen3-8B")) << "learned from /v1/models";
    EXPECT_EQ(good.service, QStringLiteral("router"));
    EXPECT_GT(good.ms, 0);
    EXPECT_TRUE(console.center.isEmpty());

    // The decode dies; the router's liveness /health still answers 200.
    const int decodePort = decode.port();
    decode.stop();
    ASSERT_TRUE(waitUntil([&] { return !console.center.isEmpty(); }, 20s));
    const alerts::Alert alert = console.center.active().first();
    EXPECT_EQ(alert.kind, AlertKind::E2eFailing);
    EXPECT_EQ(alert.target, QStringLiteral("pd"));
    EXPECT_EQ(console.statuses.value(QStringLiteral("router")).httpStatus, 200);
    EXPECT_TRUE(alert.text.startsWith(
        QStringLiteral("cluster pd: router router answers /health with 200, but the last 2 "
                       "end-to-end chat completions through it failed, the last after")))
        << alert.text.toStdString();
    // The alert quotes the second failed probe after the good one.
    qsizetype failedIndex = goodAt + 1;
    while (failedIndex < results.size() && results[failedIndex].ok)
        ++failedIndex;
    ASSERT_LT(failedIndex + 1, results.size());
    EXPECT_FALSE(results[failedIndex].ok);
    EXPECT_FALSE(results[failedIndex + 1].ok);
    EXPECT_TRUE(alert.text.endsWith(results[failedIndex + 1].error)) << alert.text.toStdString();
    EXPECT_EQ(alert.sinceMs, results[failedIndex].finishedAtMs);

    // A decode on the same port again: the next probe passes and clears the alert.
    SimProcess again;
    ASSERT_TRUE(again.start({QStringLiteral("--role"), QStringLiteral("decode"),
                             QStringLiteral("--port"), QString::number(decodePort),
                             QStringLiteral("--ready-delay"), QStringLiteral("0")}))
        << again.errorText().toStdString();
    ASSERT_TRUE(waitUntil([&] { return console.center.isEmpty(); }, 30s))
        << console.center.bannerText().toStdString();
    EXPECT_TRUE(results.back().ok);
    EXPECT_EQ(raised.count(), 1) << "no alert for a start-up blip, one for the outage";
    EXPECT_EQ(cleared.count(), 1);
}

TEST(EndToEndProbe, AnswersOkFromAnEngineAndIsBoundedWhenItHangs)
{
    SimProcess engine, stuck;
    ASSERT_TRUE(engine.start(simArgs(QStringLiteral("engine"))))
        << engine.errorText().toStdString();
    ASSERT_TRUE(stuck.start(test::stuckEngineArgs())) << stuck.errorText().toStdString();
    auto entry = [](const SimProcess &sim) {
        inventory::Service s;
        s.name = QStringLiteral("engine");
        s.role = inventory::Role::Engine;
        s.url = QUrl(sim.url());
        return s;
    };
    alerts::EndToEndProbe::Settings settings;
    settings.intervalMs = 0; // only probeNow()
    settings.timeoutMs = 800;

    alerts::EndToEndProbe good(QStringLiteral("solo"), entry(engine), settings);
    QVector<alerts::EndToEndResult> results;
    QObject::connect(&good, &alerts::EndToEndProbe::probeFinished, &good,
                     [&results](const alerts::EndToEndResult &r) { results.append(r); });
    good.start();
    ASSERT_TRUE(waitUntil([&] { return results.size() == 1; }, 10s));
    EXPECT_TRUE(results[0].ok) << results[0].error.toStdString();
    EXPECT_EQ(results[0].httpStatus, 200);
    EXPECT_EQ(results[0].cluster, QStringLiteral("solo"));
    EXPECT_EQ(results[0].url.path(), QStringLiteral("/v1/chat/completions"));

    // A hanging engine: one probe in flight however often it is asked, cut at the bound.
    alerts::EndToEndProbe hanging(QStringLiteral("solo"), entry(stuck), settings);
    QObject::connect(&hanging, &alerts::EndToEndProbe::probeFinished, &hanging,
                     [&results](const alerts::EndToEndResult &r) { results.append(r); });
    hanging.start();
    hanging.probeNow();
    hanging.probeNow();
    EXPECT_TRUE(hanging.inFlight());
    ASSERT_TRUE(waitUntil([&] { return results.size() == 2; }, 10s));
    EXPECT_FALSE(results[1].ok);
    EXPECT_EQ(results[1].error, QStringLiteral("no answer within 800 ms"));
    EXPECT_EQ(results[1].httpStatus, 0);
    EXPECT_FALSE(waitUntil([&] { return results.size() > 2; }, 1500ms))
        << "the extra probeNow() calls started nothing";

    // Nobody listening: the reason in words.
    inventory::Service closed = entry(engine);
    closed.url = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(test::freeTcpPort()));
    alerts::EndToEndProbe refused(QStringLiteral("solo"), closed, settings);
    QObject::connect(&refused, &alerts::EndToEndProbe::probeFinished, &refused,
                     [&results](const alerts::EndToEndResult &r) { results.append(r); });
    refused.start();
    ASSERT_TRUE(waitUntil([&] { return results.size() == 3; }, 10s));
    EXPECT_FALSE(results[2].ok);
    EXPECT_TRUE(results[2].error.startsWith(QStringLiteral("GET /v1/models: ")))
        << results[2].error.toStdString();
    EXPECT_TRUE(results[2].error.contains(QStringLiteral("refused"), Qt::CaseInsensitive))
        << results[2].error.toStdString();
}

TEST(AlertsWithSim, BootstrapFailuresUnderTrafficRaiseFailuresRisingAndQuietClearsIt)
{
    SimProcess prefill, decode, router, traffic;
    ASSERT_TRUE(prefill.start(simArgs(QStringLiteral("prefill"))))
        << prefill.errorText().toStdString();
    ASSERT_TRUE(decode.start(simArgs(QStringLiteral("decode"))))
        << decode.errorText().toStdString();
    // The router is told a bootstrap port nobody listens on: every request it
    // forwards makes the decode count a KV bootstrap failure.
    ASSERT_TRUE(
        router.start(routerArgs({prefill.url(), QString::number(test::freeTcpPort())}, decode)))
        << router.errorText().toStdString();
    const inventory::Inventory inventory =
        inventoryOf(pdInventory(prefill, decode, router,
                                QStringLiteral("alerts:\n  e2e_interval_s: 0\n  rules:\n"
                                               "    - {kind: failures_rising, cluster: pd, "
                                               "for_s: 2}\n")));
    Console console(inventory);
    QSignalSpy raised(&console.center, &alerts::AlertCenter::alertRaised);
    QSignalSpy cleared(&console.center, &alerts::AlertCenter::alertCleared);

    ASSERT_TRUE(
        traffic.start({QStringLiteral("--role"), QStringLiteral("traffic"),
                       QStringLiteral("--target"), router.url(), QStringLiteral("--clients"),
                       QStringLiteral("2"), QStringLiteral("--idle-gap-ms"), QStringLiteral("100"),
                       QStringLiteral("--max-tokens"), QStringLiteral("2")}))
        << traffic.errorText().toStdString();
    ASSERT_TRUE(waitUntil([&] { return raised.count() > 0; }, 30s));
    const alerts::Alert alert = console.center.active().first();
    EXPECT_EQ(alert.kind, AlertKind::FailuresRising);
    EXPECT_EQ(alert.target, QStringLiteral("pd"));
    EXPECT_TRUE(alert.text.startsWith(QStringLiteral("cluster pd: decode counts 0 KV transfer "
                                                     "failures/s and ")))
        << alert.text.toStdString();
    EXPECT_GE(alert.atMs - alert.sinceMs, 2000) << "for_s: 2";

    // The traffic stops: ten seconds without a failure clear it.
    traffic.stop();
    ASSERT_TRUE(waitUntil([&] { return cleared.count() > 0; }, 30s));
    EXPECT_TRUE(console.center.isEmpty());
    EXPECT_EQ(raised.count(), 1) << "raised once while failing";
}
