// Prometheus API answers: the shapes of docs/querying/api ("Format overview",
// "Expression query result formats"), written by hand from that page.
#include "queryresponseparser.h"

#include <cmath>
#include <gtest/gtest.h>

using opsdeck::prometheus::QueryResponseParser;

namespace {
const QString server = QStringLiteral("127.0.0.1:9090");
}

TEST(QueryResponseParser, ReadsAMatrixWithNanAndInfinities)
{
    const QByteArray body = R"({"status":"success","data":{"resultType":"matrix","result":[
        {"metric":{"instance":"127.0.0.1:30000","job":"opsdeck"},
         "values":[[1700000000,"1.5"],[1700000001.25,"NaN"],[1700000002.5,"+Inf"],
                   [1700000003,"-Inf"],[1700000004,"2e-3"]]},
        {"metric":{},"values":[]}]}})";
    const auto result = QueryResponseParser::parse(body, 200, server);
    ASSERT_TRUE(result.ok) << result.error.toStdString();
    EXPECT_EQ(result.resultType, QStringLiteral("matrix"));
    ASSERT_EQ(result.series.size(), 2);
    const auto &first = result.series.at(0);
    EXPECT_EQ(first.labels.value(QStringLiteral("instance")), QStringLiteral("127.0.0.1:30000"));
    ASSERT_EQ(first.points.size(), 5);
    EXPECT_EQ(first.points[0].timeMs, 1700000000000);
    EXPECT_DOUBLE_EQ(first.points[0].value, 1.5);
    EXPECT_EQ(first.points[1].timeMs, 1700000001250);
    EXPECT_TRUE(std::isnan(first.points[1].value));
    EXPECT_EQ(first.points[2].timeMs, 1700000002500);
    EXPECT_TRUE(std::isinf(first.points[2].value) && first.points[2].value > 0);
    EXPECT_TRUE(std::isinf(first.points[3].value) && first.points[3].value < 0);
    EXPECT_DOUBLE_EQ(first.points[4].value, 0.002);
    EXPECT_TRUE(result.series.at(1).labels.isEmpty());
    EXPECT_TRUE(result.series.at(1).points.isEmpty());
}

TEST(QueryResponseParser, ReadsVectorScalarAndWarnings)
{
    const auto vector = QueryResponseParser::parse(
        R"({"status":"success","data":{"resultType":"vector","result":[
            {"metric":{"__name__":"up"},"value":[1700000000.5,"1"]}]},
            "warnings":["PromQL info: metric might not be a counter"]})",
        200, server);
    ASSERT_TRUE(vector.ok) << vector.error.toStdString();
    ASSERT_EQ(vector.series.size(), 1);
    EXPECT_EQ(vector.series[0].labels.value(QStringLiteral("__name__")), QStringLiteral("up"));
    ASSERT_EQ(vector.series[0].points.size(), 1);
    EXPECT_EQ(vector.series[0].points[0].timeMs, 1700000000500);
    EXPECT_EQ(vector.warnings,
              QStringList{QStringLiteral("PromQL info: metric might not be a counter")});

    const auto scalar = QueryResponseParser::parse(
        R"({"status":"success","data":{"resultType":"scalar","result":[1700000000,"2"]}})", 200,
        server);
    ASSERT_TRUE(scalar.ok);
    ASSERT_EQ(scalar.series.size(), 1);
    EXPECT_DOUBLE_EQ(scalar.series[0].points.at(0).value, 2);
}

TEST(QueryResponseParser, EmptyResultIsNotAnError)
{
    const auto result = QueryResponseParser::parse(
        R"({"status":"success","data":{"resultType":"matrix","result":[]}})", 200, server);
    EXPECT_TRUE(result.ok);
    EXPECT_TRUE(result.series.isEmpty());
}

TEST(QueryResponseParser, PrometheusErrorNamesServerTypeAndMessage)
{
    const auto result = QueryResponseParser::parse(
        R"({"status":"error","errorType":"bad_data","error":"1:6: parse error: unclosed left parenthesis"})",
        400, server);
    EXPECT_FALSE(result.ok);
    EXPECT_EQ(result.error, QStringLiteral("Prometheus at 127.0.0.1:9090: bad_data: 1:6: parse "
                                           "error: unclosed left parenthesis (HTTP 400)"));
}

TEST(QueryResponseParser, HttpStatusWithoutErrorBodyIsNamed)
{
    const auto result = QueryResponseParser::parse("<html>bad gateway</html>", 502, server);
    EXPECT_FALSE(result.ok);
    EXPECT_EQ(result.error, QStringLiteral("Prometheus at 127.0.0.1:9090: HTTP 502"));
}

TEST(QueryResponseParser, BadJsonAndBadValuesFail)
{
    const auto notJson = QueryResponseParser::parse("sglang:num_running_reqs 1\n", 200, server);
    EXPECT_FALSE(notJson.ok);
    EXPECT_TRUE(notJson.error.startsWith(QStringLiteral("Prometheus at 127.0.0.1:9090: answer is "
                                                        "not JSON")))
        << notJson.error.toStdString();

    const auto badValue = QueryResponseParser::parse(
        R"({"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{},"values":[[1700000000,"twelve"]]}]}})",
        200, server);
    EXPECT_FALSE(badValue.ok);
    EXPECT_EQ(badValue.error,
              QStringLiteral("Prometheus at 127.0.0.1:9090: malformed matrix result"));

    const auto noStatus = QueryResponseParser::parse(R"({"data":{}})", 200, server);
    EXPECT_FALSE(noStatus.ok);
    EXPECT_TRUE(noStatus.error.contains(QStringLiteral("status")));
}
