// The client's errors against misbehaving loopback servers (BadHttpServer):
// each names the server and says what went wrong, within the deadline and
// the size limit.
#include "badhttpserver.h"
#include "prometheusclient.h"
#include "testsupport.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <gtest/gtest.h>

using opsdeck::prometheus::PrometheusClient;
using opsdeck::prometheus::QueryResult;
using opsdeck::test::BadHttpServer;
using opsdeck::test::waitUntil;

namespace {

/// Runs one call and waits for its answer (the id must match).
QueryResult answerOf(PrometheusClient &client, const std::function<quint64()> &call,
                     std::chrono::milliseconds deadline = std::chrono::seconds(10))
{
    QSignalSpy spy(&client, &PrometheusClient::queryFinished);
    const quint64 id = call();
    EXPECT_TRUE(spy.isEmpty()) << "answered before the call returned";
    EXPECT_TRUE(waitUntil([&] { return !spy.isEmpty(); }, deadline)) << "no answer";
    if (spy.isEmpty())
        return {};
    EXPECT_EQ(spy.first().at(0).toULongLong(), id);
    return spy.first().at(1).value<QueryResult>();
}

QUrl urlOf(const BadHttpServer &server)
{
    return QUrl(QString::fromStdString(server.url()));
}

/// The answer of `server` to one instant query `up`, asked with `settings`.
QueryResult queryUp(const BadHttpServer &server, const PrometheusClient::Settings &settings = {})
{
    PrometheusClient client(urlOf(server));
    client.setSettings(settings);
    return answerOf(client, [&] { return client.query(QStringLiteral("up"), 1700000000000); });
}

} // namespace

TEST(PrometheusClient, ServerThatNeverAnswersTimesOutNamingIt)
{
    BadHttpServer server(BadHttpServer::Mode::Silent);
    ASSERT_TRUE(server.start());
    PrometheusClient client(urlOf(server));
    client.setSettings({500, 1024 * 1024});
    QElapsedTimer clock;
    clock.start();
    const auto result = answerOf(client, [&] {
        return client.queryRange(QStringLiteral("up"), 1700000000000, 1700000060000, 15);
    });
    EXPECT_FALSE(result.ok);
    EXPECT_EQ(
        result.error,
        QStringLiteral("Prometheus at 127.0.0.1:%1: no answer within 500 ms").arg(server.port()));
    EXPECT_LT(clock.elapsed(), 5000);
}

TEST(PrometheusClient, HeadersOneBytePerSecondHitTheWholeRequestDeadline)
{
    BadHttpServer server(BadHttpServer::Mode::SlowHeaders);
    ASSERT_TRUE(server.start());
    const auto result = queryUp(server, {1500, 1024 * 1024});
    EXPECT_FALSE(result.ok);
    EXPECT_TRUE(result.error.endsWith(QStringLiteral("no answer within 1500 ms")))
        << result.error.toStdString();
}

TEST(PrometheusClient, HugeAnswerIsCutAtTheSizeLimit)
{
    BadHttpServer server(BadHttpServer::Mode::HugeBody);
    ASSERT_TRUE(server.start());
    const auto result = queryUp(server, {20000, 1024 * 1024});
    EXPECT_FALSE(result.ok);
    EXPECT_EQ(result.error,
              QStringLiteral("Prometheus at 127.0.0.1:%1: body larger than 1048576 bytes")
                  .arg(server.port()));
}

TEST(PrometheusClient, AnswerCutBeforeItsLengthIsNotParsed)
{
    BadHttpServer server(BadHttpServer::Mode::Truncated);
    ASSERT_TRUE(server.start());
    const auto result = queryUp(server);
    EXPECT_FALSE(result.ok);
    EXPECT_TRUE(result.error.startsWith(
        QStringLiteral("Prometheus at 127.0.0.1:%1: HTTP 200, then ").arg(server.port())))
        << result.error.toStdString();
    EXPECT_FALSE(result.error.contains(QStringLiteral("JSON"))) << result.error.toStdString();
}

TEST(PrometheusClient, NonJsonAnswerIsAClearError)
{
    BadHttpServer server(BadHttpServer::Mode::NonUtf8Metrics);
    ASSERT_TRUE(server.start());
    const auto result = queryUp(server);
    EXPECT_FALSE(result.ok);
    EXPECT_TRUE(result.error.startsWith(
        QStringLiteral("Prometheus at 127.0.0.1:%1: answer is not JSON").arg(server.port())))
        << result.error.toStdString();
}

TEST(PrometheusClient, GarbageAndRefusedConnectionsNameTheServer)
{
    BadHttpServer garbage(BadHttpServer::Mode::Garbage);
    ASSERT_TRUE(garbage.start());
    const auto result = queryUp(garbage);
    EXPECT_FALSE(result.ok);
    EXPECT_TRUE(
        result.error.startsWith(QStringLiteral("Prometheus at 127.0.0.1:%1: ").arg(garbage.port())))
        << result.error.toStdString();

    const int port = opsdeck::test::freeTcpPort();
    PrometheusClient refused(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port)));
    const auto closed =
        answerOf(refused, [&] { return refused.query(QStringLiteral("up"), 1700000000000); });
    EXPECT_FALSE(closed.ok);
    EXPECT_EQ(closed.error,
              QStringLiteral("Prometheus at 127.0.0.1:%1: Connection refused").arg(port));
}

TEST(PrometheusClient, BadRangeFailsWithoutARequest)
{
    BadHttpServer server(BadHttpServer::Mode::Silent);
    ASSERT_TRUE(server.start());
    PrometheusClient client(urlOf(server));
    const auto backwards = answerOf(client, [&] {
        return client.queryRange(QStringLiteral("up"), 1700000060000, 1700000000000, 15);
    });
    EXPECT_FALSE(backwards.ok);
    EXPECT_TRUE(backwards.error.contains(QStringLiteral("bad range")));
    const auto noStep = answerOf(client, [&] {
        return client.queryRange(QStringLiteral("up"), 1700000000000, 1700000060000, 0);
    });
    EXPECT_FALSE(noStep.ok);
    EXPECT_EQ(server.connections(), 0);
}
