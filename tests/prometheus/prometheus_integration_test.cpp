// Prometheus as a source, end to end: a real Prometheus (Debian's
// /usr/bin/prometheus, its own config, port and TSDB) scrapes a real
// opsdeck-sim engine every second while a traffic generator keeps it busy;
// the console's PromQL, through PrometheusClient, must give back what the
// engine's own counters say.
#include "expositionparser.h"
#include "pagesummary.h"
#include "prometheusclient.h"
#include "prometheusprocess.h"
#include "promqlbuilder.h"
#include "simprocess.h"
#include "testsupport.h"

#include <QDateTime>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QSignalSpy>
#include <cmath>
#include <gtest/gtest.h>

using namespace opsdeck;
using metrics::Concept;
using metrics::Profile;
using prometheus::PrometheusClient;
using prometheus::PromqlBuilder;
using prometheus::QueryResult;
using test::waitUntil;

namespace {

constexpr int trafficClients = 8;

QueryResult answerOf(PrometheusClient &client, const std::function<quint64()> &call)
{
    QSignalSpy spy(&client, &PrometheusClient::queryFinished);
    const quint64 id = call();
    EXPECT_TRUE(waitUntil([&] { return !spy.isEmpty(); }, std::chrono::seconds(15)))
        << "Prometheus did not answer";
    if (spy.isEmpty())
        return {};
    EXPECT_EQ(spy.first().at(0).toULongLong(), id);
    return spy.first().at(1).value<QueryResult>();
}

/// The engine's generated-token counter read straight from its /metrics, and
/// when (ms since the epoch, the middle of the request).
struct DirectScrape
{
    double generationTokens = -1;
    qint64 atMs = 0;
};

DirectScrape scrape(const QString &baseUrl)
{
    QNetworkAccessManager network;
    network.setProxy(QNetworkProxy::NoProxy);
    const qint64 before = QDateTime::currentMSecsSinceEpoch();
    QNetworkReply *reply = network.get(QNetworkRequest(QUrl(baseUrl + QStringLiteral("/metrics"))));
    EXPECT_TRUE(waitUntil([&] { return reply->isFinished(); }, std::chrono::seconds(5)));
    const qint64 after = QDateTime::currentMSecsSinceEpoch();
    const QByteArray body = reply->readAll();
    delete reply;
    const auto summary = metrics::summarizePage(metrics::ExpositionParser::parse(
        std::string_view(body.constData(), static_cast<std::size_t>(body.size()))));
    return {summary.generationTokensTotal.value_or(-1), (before + after) / 2};
}

class PrometheusSource : public ::testing::Test
{
protected:
    void SetUp() override
    {
        ASSERT_TRUE(m_engine.start({QStringLiteral("--role"), QStringLiteral("engine"),
                                    QStringLiteral("--port"), QStringLiteral("0"),
                                    QStringLiteral("--ready-delay"), QStringLiteral("0")}))
            << m_engine.errorText().toStdString();
        ASSERT_TRUE(m_traffic.start({QStringLiteral("--role"), QStringLiteral("traffic"),
                                     QStringLiteral("--target"), m_engine.url(),
                                     QStringLiteral("--clients"), QString::number(trafficClients),
                                     QStringLiteral("--max-tokens"), QStringLiteral("32"),
                                     QStringLiteral("--idle-gap-ms"), QStringLiteral("20")}))
            << m_traffic.errorText().toStdString();
        m_instance = QStringLiteral("127.0.0.1:%1").arg(m_engine.port());
        ASSERT_TRUE(m_prometheus.start({m_instance})) << m_prometheus.errorText().toStdString();
        m_client = std::make_unique<PrometheusClient>(QUrl(m_prometheus.url()));
    }

    /// Waits until Prometheus has a raw sample of the engine's counter at or
    /// after `atMs` (it scrapes every second; 20 s is generous).
    bool scrapedSince(qint64 atMs)
    {
        return waitUntil(
            [&] {
                const auto result = answerOf(*m_client, [&] {
                    return m_client->query(
                        QStringLiteral("timestamp(%1)")
                            .arg(PromqlBuilder::selector(
                                QStringLiteral("sglang:generation_tokens_total"), m_instance)),
                        QDateTime::currentMSecsSinceEpoch());
                });
                return result.ok && result.series.size() == 1 &&
                       result.series[0].points.at(0).value * 1000.0 >= static_cast<double>(atMs);
            },
            std::chrono::seconds(20));
    }

    test::SimProcess m_engine;
    test::SimProcess m_traffic;
    test::PrometheusProcess m_prometheus;
    std::unique_ptr<PrometheusClient> m_client;
    QString m_instance;
};

} // namespace

TEST_F(PrometheusSource, RangesOfTheScrapedEngineAgreeWithItsCounters)
{
    const QString throughput =
        PromqlBuilder::perSecond(Concept::GenerationTokens, Profile::Auto, m_instance, 5);
    // Wait until the rate has points (two scrapes inside the 5 s window).
    ASSERT_TRUE(waitUntil(
        [&] {
            const qint64 now = QDateTime::currentMSecsSinceEpoch();
            const auto result = answerOf(
                *m_client, [&] { return m_client->queryRange(throughput, now - 30000, now, 1); });
            return result.ok && !result.series.isEmpty() && result.series[0].points.size() >= 3;
        },
        std::chrono::seconds(40)))
        << m_prometheus.errorText().toStdString();

    // Two direct scrapes 10 s apart, Prometheus scraping in between.
    const DirectScrape first = scrape(m_engine.url());
    ASSERT_GE(first.generationTokens, 0);
    ASSERT_TRUE(scrapedSince(first.atMs + 10000));
    const DirectScrape second = scrape(m_engine.url());
    const double direct = (second.generationTokens - first.generationTokens) /
                          (static_cast<double>(second.atMs - first.atMs) / 1000.0);
    ASSERT_GT(direct, 100.0) << "the traffic generator should keep the engine decoding";

    // Each point is the rate over the 5 s before it: points from first+5 s
    // to second cover the span between the direct scrapes.
    const auto rates = answerOf(*m_client, [&] {
        return m_client->queryRange(throughput, first.atMs + 5000, second.atMs, 1);
    });
    ASSERT_TRUE(rates.ok) << rates.error.toStdString();
    ASSERT_EQ(rates.series.size(), 1);
    EXPECT_TRUE(rates.series[0].labels.isEmpty()) << "summed into one series";
    const auto &points = rates.series[0].points;
    ASSERT_GE(points.size(), 4);
    double sum = 0;
    for (int i = 0; i < points.size(); ++i) {
        EXPECT_GE(points[i].timeMs, first.atMs + 5000 - 1);
        EXPECT_LE(points[i].timeMs, second.atMs + 1);
        if (i > 0) {
            EXPECT_GT(points[i].timeMs, points[i - 1].timeMs);
        }
        sum += points[i].value;
    }
    const double fromPrometheus = sum / static_cast<double>(points.size());
    std::printf("generation throughput: direct %.1f tokens/s, Prometheus %.1f tokens/s\n", direct,
                fromPrometheus);
    // 10 %: the traffic's think time makes the rate wobble by a few percent
    // per second, and Prometheus' scrapes are up to 1 s off the direct ones.
    EXPECT_NEAR(fromPrometheus, direct, 0.10 * direct);

    // Running requests for that instance: the SGLang gauge, summed.
    const auto running = answerOf(*m_client, [&] {
        return m_client->queryRange(
            PromqlBuilder::value(Concept::Running, Profile::SGLang, m_instance), first.atMs,
            second.atMs, 1);
    });
    ASSERT_TRUE(running.ok) << running.error.toStdString();
    ASSERT_EQ(running.series.size(), 1);
    ASSERT_GE(running.series[0].points.size(), 8);
    double peak = 0;
    for (const auto &point : running.series[0].points) {
        EXPECT_GE(point.value, 0);
        EXPECT_LE(point.value, trafficClients);
        peak = std::max(peak, point.value);
    }
    EXPECT_GT(peak, 0) << "the batch was never seen busy";

    // An instant query reads the same gauge at one moment.
    const auto now = answerOf(*m_client, [&] {
        return m_client->query(PromqlBuilder::value(Concept::Running, Profile::Auto, m_instance),
                               second.atMs);
    });
    ASSERT_TRUE(now.ok) << now.error.toStdString();
    EXPECT_EQ(now.resultType, QStringLiteral("vector"));
    ASSERT_EQ(now.series.size(), 1);
    EXPECT_EQ(now.series[0].points.size(), 1);

    // The p99 TTFT query evaluates (histogram_quantile over summed buckets).
    const auto ttft = answerOf(*m_client, [&] {
        return m_client->query(
            PromqlBuilder::quantile(Concept::Ttft, Profile::Auto, m_instance, 0.99, 10),
            second.atMs);
    });
    ASSERT_TRUE(ttft.ok) << ttft.error.toStdString();
    ASSERT_EQ(ttft.series.size(), 1);
    EXPECT_GT(ttft.series[0].points.at(0).value, 0);
}

TEST_F(PrometheusSource, UnknownInstanceIsEmptyAndBadPromqlNamesTheServer)
{
    ASSERT_TRUE(scrapedSince(QDateTime::currentMSecsSinceEpoch() - 1000))
        << m_prometheus.errorText().toStdString();
    const qint64 now = QDateTime::currentMSecsSinceEpoch();

    const auto unknown = answerOf(*m_client, [&] {
        return m_client->queryRange(
            PromqlBuilder::value(Concept::Running, Profile::Auto, QStringLiteral("127.0.0.1:1")),
            now - 60000, now, 1);
    });
    EXPECT_TRUE(unknown.ok) << unknown.error.toStdString();
    EXPECT_EQ(unknown.resultType, QStringLiteral("matrix"));
    EXPECT_TRUE(unknown.series.isEmpty());

    const auto bad = answerOf(*m_client, [&] {
        return m_client->queryRange(QStringLiteral("sum(rate(sglang:generation_tokens_total[1m]"),
                                    now - 60000, now, 1);
    });
    EXPECT_FALSE(bad.ok);
    EXPECT_TRUE(bad.error.startsWith(
        QStringLiteral("Prometheus at 127.0.0.1:%1: bad_data: ").arg(m_prometheus.port())))
        << bad.error.toStdString();
    EXPECT_TRUE(bad.error.contains(QStringLiteral("parse error"))) << bad.error.toStdString();

    // '+' reaches Prometheus as a plus, not as a form-encoded space.
    const auto arithmetic =
        answerOf(*m_client, [&] { return m_client->query(QStringLiteral("1+1"), now); });
    ASSERT_TRUE(arithmetic.ok) << arithmetic.error.toStdString();
    EXPECT_EQ(arithmetic.resultType, QStringLiteral("scalar"));
    EXPECT_DOUBLE_EQ(arithmetic.series.at(0).points.at(0).value, 2);

    // Too many points per series: Prometheus' own limit, passed on in its words.
    const auto tooFine = answerOf(*m_client, [&] {
        return m_client->queryRange(QStringLiteral("up"), now - 86400000, now, 1);
    });
    EXPECT_FALSE(tooFine.ok);
    EXPECT_TRUE(tooFine.error.contains(QStringLiteral("11,000"))) << tooFine.error.toStdString();
}
