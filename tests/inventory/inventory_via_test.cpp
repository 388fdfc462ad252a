// The service field `via: <host>` (a tunnel through an ssh host): read, and
// refused with its line when it names no host or a local one.
#include "inventorytest.h"

using namespace opsdeck::inventory;
using namespace opsdeck::inventory::test;

TEST(InventoryVia, NamesAnSshHost)
{
    const LoadResult result = parse(R"(
hosts:
  - {name: gpu-1, kind: ssh, address: 127.0.0.2}
services:
  - {name: decode, role: decode, host: gpu-1, via: gpu-1, url: "http://127.0.0.1:30001"}
  - {name: router, role: router, host: gpu-1, url: "http://127.0.0.2:8000"}
)");
    ASSERT_TRUE(result.inventory) << dump(result);
    EXPECT_EQ(result.inventory->services[0].via, QStringLiteral("gpu-1"));
    EXPECT_TRUE(result.inventory->services[1].via.isEmpty());
}

TEST(InventoryVia, UnknownHostIsAnErrorAtItsLine)
{
    const LoadResult result = parse(R"(
hosts:
  - {name: gpu-1, kind: ssh, address: 127.0.0.2}
services:
  - name: decode
    role: decode
    host: gpu-1
    via: gpu-9
    url: "http://127.0.0.1:30001"
)");
    ASSERT_FALSE(result.inventory);
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_TRUE(
        isError(result, 0, 7, 10, "services[0].via", "no host named 'gpu-9' (hosts: gpu-1)"));
}

TEST(InventoryVia, LocalHostIsRefused)
{
    const LoadResult result = parse(R"(
hosts:
  - {name: here, kind: local}
services:
  - {name: engine, role: engine, host: here, via: here, url: "http://127.0.0.1:30000"}
)");
    ASSERT_FALSE(result.inventory);
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_TRUE(isError(result, 0, 4, 51, "services[0].via", "via needs an ssh host"));
}

TEST(InventoryVia, HttpsThroughATunnelIsRefusedAtItsLine)
{
    const LoadResult result = parse(R"(
hosts:
  - {name: gpu-1, kind: ssh, address: 127.0.0.2}
services:
  - name: decode
    role: decode
    host: gpu-1
    via: gpu-1
    url: "https://127.0.0.1:30001"
)");
    ASSERT_FALSE(result.inventory);
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_TRUE(
        isError(result, 0, 7, 10, "services[0].via", "https through a tunnel is not supported"));
}
