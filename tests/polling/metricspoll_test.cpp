// ServicePoller's /metrics scrapes (MetricsSampler on the poller's thread)
// against real servers on loopback: an opsdeck-sim engine under traffic from
// an opsdeck-sim traffic generator, the same engine restarted between scrapes,
// and servers whose /metrics is missing or not metrics.
#include "servicepoller.h"
#include "simprocess.h"
#include "testsupport.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <thread>

using namespace opsdeck;
using opsdeck::test::waitUntil;

namespace {

inventory::Service engine(const QString &name, int port)
{
    inventory::Service s;
    s.name = name;
    s.role = inventory::Role::Engine;
    s.url = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    return s;
}

QStringList engineArgs(int port)
{
    return {QStringLiteral("--role"), QStringLiteral("engine"),        QStringLiteral("--port"),
            QString::number(port),    QStringLiteral("--ready-delay"), QStringLiteral("0")};
}

QStringList trafficArgs(int enginePort)
{
    return {QStringLiteral("--role"),        QStringLiteral("traffic"),
            QStringLiteral("--target"),      QStringLiteral("http://127.0.0.1:%1").arg(enginePort),
            QStringLiteral("--clients"),     QStringLiteral("4"),
            QStringLiteral("--max-tokens"),  QStringLiteral("16"),
            QStringLiteral("--idle-gap-ms"), QStringLiteral("40"),
            QStringLiteral("--duration"),    QStringLiteral("120")};
}

/// Every snapshot the poller emits, in order.
QVector<probes::MetricsSnapshot> *collect(probes::ServicePoller &poller)
{
    auto *snapshots = new QVector<probes::MetricsSnapshot>;
    QObject::connect(&poller, &probes::ServicePoller::metricsSampled, &poller,
                     [snapshots](const probes::MetricsSnapshot &s) { snapshots->append(s); });
    QObject::connect(&poller, &QObject::destroyed, [snapshots] { delete snapshots; });
    return snapshots;
}

double valueOf(const probes::MetricsSnapshot &s, const char *key, double absent = -1)
{
    const probes::SeriesValue *v = s.find(QLatin1String(key));
    return v ? v->value : absent;
}

} // namespace

TEST(MetricsPoll, ASimUnderTrafficGivesTokenRatesQuantilesAndSampleTimes)
{
    test::SimProcess sim;
    ASSERT_TRUE(sim.start(engineArgs(0))) << sim.errorText().toStdString();
    test::SimProcess traffic;
    ASSERT_TRUE(traffic.start(trafficArgs(sim.port()))) << traffic.errorText().toStdString();

    probes::ServicePoller poller;
    probes::ServicePoller::Settings settings;
    settings.intervalMs = 300;
    settings.pollDecodeLoad = false;
    poller.setSettings(settings);
    auto *snapshots = collect(poller);
    poller.setServices({engine(QStringLiteral("engine-a"), sim.port())});
    poller.start();

    const probes::MetricsSnapshot *busy = nullptr;
    ASSERT_TRUE(waitUntil(
        [&] {
            for (const auto &s : *snapshots)
                if (valueOf(s, "generation_tokens_per_s") > 0 &&
                    s.find(QStringLiteral("ttft_p50_s")))
                    busy = &s;
            return busy != nullptr;
        },
        std::chrono::seconds(20)))
        << snapshots->size() << " snapshots";
    const probes::MetricsSnapshot s = *busy;
    EXPECT_TRUE(s.error.isEmpty()) << s.error.toStdString();
    EXPECT_EQ(s.service, QStringLiteral("engine-a"));
    EXPECT_EQ(s.profile, QStringLiteral("sglang"));
    EXPECT_GT(valueOf(s, "prompt_tokens_per_s"), 0.0);
    EXPECT_GT(valueOf(s, "ttft_p50_s"), 0.0);
    EXPECT_EQ(s.find(QStringLiteral("generation_tokens_per_s"))->unit, QStringLiteral("tokens/s"));
    ASSERT_NE(s.find(QStringLiteral("running")), nullptr);
    EXPECT_EQ(s.find(QStringLiteral("running"))->source, QStringLiteral("sglang:num_running_reqs"));
    EXPECT_FALSE(s.find(QStringLiteral("running"))->refresh.isEmpty());
    ASSERT_NE(s.find(QStringLiteral("running{dp_rank=\"0\"}")), nullptr);
    for (const auto &snapshot : *snapshots) {
        for (const probes::SeriesValue &v : snapshot.values) {
            EXPECT_LE(v.sampledAtMs, snapshot.timeMs) << v.key.toStdString();
            EXPECT_GT(v.sampledAtMs, snapshot.timeMs - 120'000) << v.key.toStdString();
        }
    }
    poller.stop();
}

TEST(MetricsPoll, ASimRestartedBetweenScrapesGivesNoNegativeRate)
{
    const int port = test::freeTcpPort();
    auto sim = std::make_unique<test::SimProcess>();
    ASSERT_TRUE(sim->start(engineArgs(port))) << sim->errorText().toStdString();
    auto traffic = std::make_unique<test::SimProcess>();
    ASSERT_TRUE(traffic->start(trafficArgs(port))) << traffic->errorText().toStdString();

    probes::ServicePoller poller;
    probes::ServicePoller::Settings settings;
    settings.intervalMs = 250;
    settings.pollDecodeLoad = false;
    poller.setSettings(settings);
    auto *snapshots = collect(poller);
    poller.setServices({engine(QStringLiteral("engine-r"), port)});
    poller.start();
    ASSERT_TRUE(waitUntil(
        [&] {
            int busy = 0;
            for (const auto &s : *snapshots)
                busy += valueOf(s, "generation_tokens_per_s") > 0 ? 1 : 0;
            return busy >= 8; // the counter has grown over several scrapes
        },
        std::chrono::seconds(20)));

    // Restart the engine: its counters start again from 0.
    traffic.reset();
    sim->stop();
    const qsizetype beforeRestart = snapshots->size();
    ASSERT_TRUE(
        waitUntil([&] { return !snapshots->isEmpty() && !snapshots->back().error.isEmpty(); },
                  std::chrono::seconds(10)))
        << "a scrape of the stopped engine fails";
    sim = std::make_unique<test::SimProcess>();
    ASSERT_TRUE(sim->start(engineArgs(port))) << sim->errorText().toStdString();
    traffic = std::make_unique<test::SimProcess>();
    ASSERT_TRUE(traffic->start(trafficArgs(port))) << traffic->errorText().toStdString();

    bool resetSeen = false;
    ASSERT_TRUE(waitUntil(
        [&] {
            for (qsizetype i = beforeRestart; i < snapshots->size(); ++i)
                for (const QString &w : snapshots->at(i).warnings)
                    resetSeen = resetSeen || w.contains(QStringLiteral("reset"));
            return resetSeen && valueOf(snapshots->back(), "generation_tokens_per_s") > 0;
        },
        std::chrono::seconds(20)))
        << "the fall of the counters is a reset, then the rate comes back";
    double highestBefore = 0;
    for (qsizetype i = 0; i < snapshots->size(); ++i) {
        const auto &s = snapshots->at(i);
        for (const char *key : {"generation_tokens_per_s", "prompt_tokens_per_s"}) {
            const double v = valueOf(s, key, 0);
            EXPECT_GE(v, 0.0) << key << " at snapshot " << i;
            if (i < beforeRestart && std::string_view(key) == "generation_tokens_per_s")
                highestBefore = std::max(highestBefore, v);
        }
    }
    // No spike: the old total (thousands of tokens) never shows up as one
    // interval's increase.
    for (qsizetype i = beforeRestart; i < snapshots->size(); ++i)
        EXPECT_LT(valueOf(snapshots->at(i), "generation_tokens_per_s", 0), 3 * highestBefore + 100)
            << "snapshot " << i;
    poller.stop();
}

TEST(MetricsPoll, MissingOrUnreadableMetricsGiveAClearErrorNamingTheService)
{
    httplib::Server server;
    server.Get("/health", [](const httplib::Request &, httplib::Response &res) {
        res.set_content("", "text/plain");
    });
    server.Get("/garbage/metrics", [](const httplib::Request &, httplib::Response &res) {
        res.set_content("<html>not metrics {{{\n", "text/plain");
    });
    server.set_keep_alive_timeout(1); // stop() waits for idle keep-alive connections
    const int port = server.bind_to_any_port("127.0.0.1");
    std::thread serverThread([&] { server.listen_after_bind(); });

    probes::ServicePoller poller;
    probes::ServicePoller::Settings settings;
    settings.intervalMs = 200;
    poller.setSettings(settings);
    auto *snapshots = collect(poller);
    inventory::Service missing = engine(QStringLiteral("router-7"), port);
    missing.role = inventory::Role::Router;
    inventory::Service garbage = engine(QStringLiteral("prefill-3"), port);
    garbage.role = inventory::Role::Prefill;
    garbage.metricsPath = QStringLiteral("/garbage/metrics");
    poller.setServices({missing, garbage});
    poller.start();

    QHash<QString, QString> errors;
    ASSERT_TRUE(waitUntil(
        [&] {
            for (const auto &s : *snapshots)
                errors[s.service] = s.error;
            return errors.size() == 2;
        },
        std::chrono::seconds(10)));
    EXPECT_EQ(errors.value(QStringLiteral("router-7")),
              QStringLiteral("router-7: /metrics HTTP 404 Not Found"));
    const QString bad = errors.value(QStringLiteral("prefill-3"));
    EXPECT_TRUE(bad.startsWith(QStringLiteral("prefill-3: no metric families; first bad line 1:")))
        << bad.toStdString();
    for (const auto &s : *snapshots)
        EXPECT_TRUE(s.values.isEmpty());

    poller.stop();
    server.stop();
    serverThread.join();
}
