// hostSignalsQueries on a real PD inventory (tests/data/inventory/two-host.yaml).
#include "hostsignalsqueries.h"
#include "testsupport.h"

#include <gtest/gtest.h>

TEST(HostSignalsQueries, ServicesOfOneHostWithPidFileAndPort)
{
    const auto loaded = opsdeck::inventory::loadInventory(
        opsdeck::test::dataPath(QStringLiteral("inventory/two-host.yaml")));
    ASSERT_TRUE(loaded.inventory.has_value());
    const auto queries =
        opsdeck::hosts::hostSignalsQueries(*loaded.inventory, QStringLiteral("gpu-1"));
    ASSERT_EQ(queries.size(), 2);
    EXPECT_EQ(queries.at(0).service, QStringLiteral("prefill"));
    EXPECT_EQ(queries.at(0).pidFile, QStringLiteral("/run/sglang/prefill.pid"));
    EXPECT_EQ(queries.at(0).port, 30000);
    EXPECT_EQ(queries.at(1).service, QStringLiteral("decode"));
    EXPECT_EQ(queries.at(1).port, 30001);
    EXPECT_TRUE(
        opsdeck::hosts::hostSignalsQueries(*loaded.inventory, QStringLiteral("nope")).isEmpty());
}
