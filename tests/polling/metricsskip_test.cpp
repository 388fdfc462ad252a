// `metrics_path: none`: the poller checks the service's health but never
// fetches a metrics page for it (a plain proxy has none); metrics_url sends
// the scrape to another port.
#include "pollerthread.h"
#include "simprocess.h"
#include "testsupport.h"

#include <QSignalSpy>
#include <gtest/gtest.h>

using namespace opsdeck;
using namespace std::chrono_literals;
using test::waitUntil;

TEST(MetricsSkip, NoneIsNeverScrapedAndMetricsUrlIsScrapedInstead)
{
    test::SimProcess engine;
    ASSERT_TRUE(
        engine.start({QStringLiteral("--role"), QStringLiteral("engine"), QStringLiteral("--port"),
                      QStringLiteral("0"), QStringLiteral("--ready-delay"), QStringLiteral("0")}))
        << engine.errorText().toStdString();
    // An engine serves /metrics: were `none` ignored, snapshots would come.
    inventory::Service skipped;
    skipped.name = QStringLiteral("skipped");
    skipped.role = inventory::Role::Proxy;
    skipped.url = QUrl(engine.url());
    skipped.metricsPath.clear();
    // Its base URL has nothing on /metrics (a path prefix the engine does not
    // serve); the override points at the engine's page.
    inventory::Service elsewhere;
    elsewhere.name = QStringLiteral("elsewhere");
    elsewhere.role = inventory::Role::Router;
    elsewhere.url = QUrl(engine.url() + QStringLiteral("/no-such-prefix"));
    elsewhere.metricsUrlOverride = QUrl(engine.url() + QStringLiteral("/metrics"));

    probes::PollerThread poller;
    QHash<QString, int> checks, scrapes, failed;
    QObject::connect(
        poller.poller(), &probes::ServicePoller::statusChecked, poller.poller(),
        [&](const probes::ServiceStatus &s) { ++checks[s.name]; }, Qt::QueuedConnection);
    QObject::connect(
        poller.poller(), &probes::ServicePoller::metricsSampled, poller.poller(),
        [&](const probes::MetricsSnapshot &s) {
            ++(s.error.isEmpty() ? scrapes : failed)[s.service];
        },
        Qt::QueuedConnection);
    poller.setServices({skipped, elsewhere});
    poller.start();
    ASSERT_TRUE(waitUntil(
        [&] {
            return checks.value(QStringLiteral("skipped")) >= 3 &&
                   scrapes.value(QStringLiteral("elsewhere")) >= 2;
        },
        15s));
    EXPECT_EQ(scrapes.value(QStringLiteral("skipped")) + failed.value(QStringLiteral("skipped")),
              0);
    EXPECT_EQ(failed.value(QStringLiteral("elsewhere")), 0) << "read from metrics_url, not url";
}

// The inventory's `profile:` is the one the sampler reads with: the same
// SGLang page read as vLLM has no running gauge (vLLM names), read as auto it
// is detected as SGLang and has one.
TEST(MetricsProfile, TheInventorysProfileOverridesDetection)
{
    test::SimProcess engine;
    ASSERT_TRUE(
        engine.start({QStringLiteral("--role"), QStringLiteral("engine"), QStringLiteral("--port"),
                      QStringLiteral("0"), QStringLiteral("--ready-delay"), QStringLiteral("0")}))
        << engine.errorText().toStdString();
    inventory::Service detected;
    detected.name = QStringLiteral("detected");
    detected.role = inventory::Role::Engine;
    detected.url = QUrl(engine.url());
    inventory::Service forced = detected;
    forced.name = QStringLiteral("forced");
    forced.profile = QStringLiteral("vllm");

    probes::PollerThread poller;
    QHash<QString, probes::MetricsSnapshot> last;
    QObject::connect(
        poller.poller(), &probes::ServicePoller::metricsSampled, poller.poller(),
        [&](const probes::MetricsSnapshot &s) { last.insert(s.service, s); }, Qt::QueuedConnection);
    poller.setServices({detected, forced});
    poller.start();
    ASSERT_TRUE(waitUntil([&] { return last.size() == 2; }, 15s));
    const probes::MetricsSnapshot a = last.value(QStringLiteral("detected"));
    const probes::MetricsSnapshot v = last.value(QStringLiteral("forced"));
    EXPECT_EQ(a.profile, QStringLiteral("sglang"));
    EXPECT_NE(a.find(QStringLiteral("running")), nullptr);
    EXPECT_EQ(v.profile, QStringLiteral("vllm"));
    EXPECT_EQ(v.find(QStringLiteral("running")), nullptr) << "read with vLLM's names";
}
