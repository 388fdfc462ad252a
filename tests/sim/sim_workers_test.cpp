// The router's worker API (DELETE / POST /workers, as the SGLang model
// gateway's) and workers failed for good (--worker-failed-after).
#include "pdcluster.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QUrl>
#include <gtest/gtest.h>

using namespace opsdeck::test;
using namespace std::chrono_literals;

namespace {

/// /workers/ID with ID the worker's URL, percent-encoded as the gateway wants it.
std::string workerPath(const QString &url)
{
    return "/workers/" + QUrl::toPercentEncoding(url).toStdString();
}

QJsonObject workerWithUrl(int routerPort, const QString &url)
{
    const QJsonObject list = jsonObject(httpGet(routerPort, "/workers").body);
    for (const auto &value : list.value(QStringLiteral("workers")).toArray()) {
        if (value.toObject().value(QStringLiteral("url")).toString() == url)
            return value.toObject();
    }
    return {};
}

int workerTotal(int routerPort)
{
    return jsonObject(httpGet(routerPort, "/workers").body)
        .value(QStringLiteral("total"))
        .toInt(-1);
}

std::string addBody(const QString &url, const QString &type, int bootstrapPort = 0)
{
    std::string body =
        R"({"url":")" + url.toStdString() + R"(","worker_type":")" + type.toStdString() + "\"";
    if (bootstrapPort > 0)
        body += ",\"bootstrap_port\":" + std::to_string(bootstrapPort);
    return body + "}";
}

QString errorOf(const HttpReply &reply)
{
    return jsonObject(reply.body).value(QStringLiteral("error")).toString();
}

} // namespace

TEST(simWorkers, DeleteTakesAWorkerOutOfRoutingAndPostAddsItBack)
{
    PdCluster cluster({});
    ASSERT_TRUE(cluster.start()) << cluster.router().errorText().toStdString();
    const int router = cluster.router().port();
    ASSERT_EQ(workerTotal(router), 2);

    // Remove the only decode: gone from /workers and from routing.
    const HttpReply removed = httpDelete(router, workerPath(cluster.decodeUrl()));
    ASSERT_EQ(removed.status, 202) << removed.body;
    const QJsonObject removedBody = jsonObject(removed.body);
    EXPECT_EQ(removedBody.value(QStringLiteral("status")).toString(), QStringLiteral("accepted"));
    EXPECT_EQ(removedBody.value(QStringLiteral("worker_id")).toString(), cluster.decodeUrl());
    EXPECT_EQ(workerTotal(router), 1);
    EXPECT_TRUE(workerWithUrl(router, cluster.decodeUrl()).isEmpty());
    const HttpReply notReady = httpGet(router, "/readiness");
    EXPECT_EQ(notReady.status, 503);
    EXPECT_EQ(jsonObject(notReady.body).value(QStringLiteral("healthy_decode_workers")).toInt(-1),
              0);
    EXPECT_EQ(cluster.chat().status, 503) << "no decode to route to";
    EXPECT_EQ(httpGet(router, workerPath(cluster.decodeUrl())).status, 404);

    const HttpReply again = httpDelete(router, workerPath(cluster.decodeUrl()));
    EXPECT_EQ(again.status, 404) << again.body;
    EXPECT_EQ(jsonObject(again.body).value(QStringLiteral("code")).toString(),
              QStringLiteral("WORKER_NOT_FOUND"));
    EXPECT_EQ(httpDelete(router, workerPath(QStringLiteral("http://127.0.0.1:1"))).status, 404);

    // Bad bodies: 400 naming the field; nothing registered.
    const HttpReply notJson = httpPost(router, "/workers", "{nope");
    EXPECT_EQ(notJson.status, 400) << notJson.body;
    const HttpReply noUrl = httpPost(router, "/workers", R"({"worker_type":"decode"})");
    EXPECT_EQ(noUrl.status, 400);
    EXPECT_TRUE(errorOf(noUrl).contains(QStringLiteral("url"))) << noUrl.body;
    const HttpReply badUrl =
        httpPost(router, "/workers", addBody(QStringLiteral("ftp://x"), QStringLiteral("decode")));
    EXPECT_EQ(badUrl.status, 400);
    EXPECT_TRUE(errorOf(badUrl).contains(QStringLiteral("url"))) << badUrl.body;
    const HttpReply badType =
        httpPost(router, "/workers", addBody(cluster.decodeUrl(), QStringLiteral("regular")));
    EXPECT_EQ(badType.status, 400);
    EXPECT_TRUE(errorOf(badType).contains(QStringLiteral("worker_type"))) << badType.body;
    const HttpReply decodePort =
        httpPost(router, "/workers", addBody(cluster.decodeUrl(), QStringLiteral("decode"), 8998));
    EXPECT_EQ(decodePort.status, 400);
    EXPECT_TRUE(errorOf(decodePort).contains(QStringLiteral("bootstrap_port"))) << decodePort.body;
    EXPECT_EQ(workerTotal(router), 1);

    // Added back: listed at once, health-polled, routed to.
    const HttpReply added =
        httpPost(router, "/workers", addBody(cluster.decodeUrl(), QStringLiteral("decode")));
    ASSERT_EQ(added.status, 202) << added.body;
    EXPECT_EQ(jsonObject(added.body).value(QStringLiteral("worker_id")).toString(),
              cluster.decodeUrl());
    EXPECT_EQ(jsonObject(added.body).value(QStringLiteral("location")).toString().toStdString(),
              workerPath(cluster.decodeUrl()));
    // httplib's client hands the Location header over percent-decoded.
    const auto location = added.headers.find("Location");
    ASSERT_NE(location, added.headers.end());
    EXPECT_EQ(QUrl::fromPercentEncoding(QByteArray::fromStdString(location->second)),
              QStringLiteral("/workers/") + cluster.decodeUrl());
    EXPECT_EQ(workerTotal(router), 2);
    ASSERT_TRUE(waitUntil([&] { return cluster.readiness() == 200; }, 10s));
    EXPECT_EQ(cluster.chat().status, 200);
    const QJsonObject decode = workerWithUrl(router, cluster.decodeUrl());
    EXPECT_TRUE(decode.value(QStringLiteral("is_healthy")).toBool());
    EXPECT_EQ(decode.value(QStringLiteral("status")).toString(), QStringLiteral("ready"));

    const HttpReply duplicate =
        httpPost(router, "/workers", addBody(cluster.decodeUrl(), QStringLiteral("decode")));
    EXPECT_EQ(duplicate.status, 409) << duplicate.body;
    EXPECT_EQ(workerTotal(router), 2);

    // A prefill re-registered with its bootstrap port routes through that port.
    ASSERT_EQ(httpDelete(router, workerPath(cluster.prefillUrl())).status, 202);
    const HttpReply prefill =
        httpPost(router, "/workers",
                 addBody(cluster.prefillUrl(), QStringLiteral("prefill"), cluster.bootstrapPort()));
    ASSERT_EQ(prefill.status, 202) << prefill.body;
    ASSERT_TRUE(waitUntil([&] { return cluster.readiness() == 200; }, 10s));
    EXPECT_EQ(
        workerWithUrl(router, cluster.prefillUrl()).value(QStringLiteral("bootstrap_port")).toInt(),
        cluster.bootstrapPort());
    EXPECT_EQ(cluster.chat().status, 200);
}

TEST(simWorkers, AWorkerFailedForGoodStaysOutUntilRemovedAndAddedAgain)
{
    PdCluster::Options options;
    options.routerExtra = {QStringLiteral("--worker-failed-after"), QStringLiteral("3")};
    PdCluster cluster(options);
    ASSERT_TRUE(cluster.start()) << cluster.router().errorText().toStdString();
    const int router = cluster.router().port();
    const auto decodeStatus = [&] {
        return workerWithUrl(router, cluster.decodeUrl())
            .value(QStringLiteral("status"))
            .toString();
    };
    EXPECT_EQ(decodeStatus(), QStringLiteral("ready"));

    cluster.stopDecode();
    ASSERT_TRUE(waitUntil([&] { return decodeStatus() == QStringLiteral("failed"); }, 10s))
        << cluster.router().errorText().toStdString();
    // The router's log line is read from its stderr a moment after /workers says so.
    EXPECT_TRUE(waitUntil(
        [&] {
            return cluster.router().errorText().contains(
                QStringLiteral("decode worker %1 failed 3 health checks in a row")
                    .arg(cluster.decodeUrl()));
        },
        5s))
        << cluster.router().errorText().toStdString();

    // Back up and answering /health 200: still failed, and readiness says why.
    ASSERT_TRUE(cluster.startDecode()) << cluster.decode().errorText().toStdString();
    ASSERT_EQ(httpGet(cluster.decode().port(), "/health").status, 200);
    EXPECT_FALSE(waitUntil([&] { return cluster.readiness() == 200; }, 1500ms))
        << "15 health checks of a healthy decode must not bring a failed worker back";
    const QJsonObject failed = workerWithUrl(router, cluster.decodeUrl());
    EXPECT_FALSE(failed.value(QStringLiteral("is_healthy")).toBool(true));
    EXPECT_EQ(failed.value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
    const HttpReply readiness = httpGet(router, "/readiness");
    EXPECT_EQ(readiness.status, 503);
    EXPECT_TRUE(jsonObject(readiness.body)
                    .value(QStringLiteral("reason"))
                    .toString()
                    .contains(QStringLiteral("failed")))
        << readiness.body;
    EXPECT_EQ(cluster.chat().status, 503);

    ASSERT_EQ(httpDelete(router, workerPath(cluster.decodeUrl())).status, 202);
    ASSERT_EQ(
        httpPost(router, "/workers", addBody(cluster.decodeUrl(), QStringLiteral("decode"))).status,
        202);
    ASSERT_TRUE(waitUntil([&] { return cluster.readiness() == 200; }, 10s));
    EXPECT_EQ(decodeStatus(), QStringLiteral("ready"));
    EXPECT_EQ(cluster.chat().status, 200);
}
