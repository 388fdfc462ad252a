// metrics_url and `metrics_path: none`: the router's metrics on their own
// port, a plain proxy with nothing to scrape.
#include "inventorytest.h"

using namespace opsdeck::inventory;
using namespace opsdeck::inventory::test;

TEST(InventoryMetricsUrl, OverridesUrlAndPathAndNoneMeansNotScraped)
{
    const LoadResult result = parse(R"(
hosts: [{name: h, kind: local}]
services:
  - {name: router, role: router, host: h, url: 'http://127.0.0.1:8000',
     metrics_url: 'http://127.0.0.1:29000/metrics?name[]=sgl_router'}
  - {name: proxy, role: proxy, host: h, url: 'http://127.0.0.1:8443', metrics_path: none}
  - {name: blank, role: proxy, host: h, url: 'http://127.0.0.1:8444', metrics_path: ''}
  - {name: decode, role: decode, host: h, url: 'http://127.0.0.1:30001/prefix'}
)");
    ASSERT_TRUE(result.errors.isEmpty()) << dump(result);
    const Inventory &inventory = *result.inventory;
    const Service *router = inventory.service(QStringLiteral("router"));
    EXPECT_TRUE(router->hasMetrics());
    EXPECT_EQ(router->metricsUrl(),
              QUrl(QStringLiteral("http://127.0.0.1:29000/metrics?name[]=sgl_router")));
    EXPECT_EQ(router->healthUrl(), QUrl(QStringLiteral("http://127.0.0.1:8000/health")))
        << "health stays under url";
    for (const char *name : {"proxy", "blank"}) {
        const Service *proxy = inventory.service(QString::fromLatin1(name));
        EXPECT_FALSE(proxy->hasMetrics()) << name;
        EXPECT_TRUE(proxy->metricsUrl().isEmpty()) << name;
    }
    const Service *decode = inventory.service(QStringLiteral("decode"));
    EXPECT_TRUE(decode->hasMetrics());
    EXPECT_EQ(decode->metricsUrl(), QUrl(QStringLiteral("http://127.0.0.1:30001/prefix/metrics")));
}

TEST(InventoryMetricsUrl, BadOrContradictoryMetricsUrl)
{
    const LoadResult result = parse(R"(
hosts: [{name: h, kind: local}]
services:
  - name: a
    role: router
    host: h
    url: http://127.0.0.1:1
    metrics_url: 127.0.0.1:29000/metrics
  - name: b
    role: proxy
    host: h
    url: http://127.0.0.1:2
    metrics_path: none
    metrics_url: http://127.0.0.1:29000/metrics
)");
    ASSERT_EQ(result.errors.size(), 2) << dump(result);
    EXPECT_TRUE(
        isError(result, 0, 7, 18, "services[0].metrics_url", "is not an http or https URL"));
    EXPECT_TRUE(isError(result, 1, 13, 18, "services[1].metrics_url", "contradicts metrics_path"));
}

// `profile:` names the engine whose metric names a service's page uses; it
// overrides detection (a page that mixes engines); unknown words are errors.
TEST(InventoryProfile, DefaultsToAutoAndRefusesUnknownWords)
{
    const LoadResult good = parse(R"(
hosts: [{name: h, kind: local}]
services:
  - {name: a, role: engine, host: h, url: 'http://127.0.0.1:8000'}
  - {name: v, role: engine, host: h, url: 'http://127.0.0.1:8001', profile: vllm}
)");
    ASSERT_TRUE(good.errors.isEmpty()) << dump(good);
    EXPECT_EQ(good.inventory->service(QStringLiteral("a"))->profile, QStringLiteral("auto"));
    EXPECT_EQ(good.inventory->service(QStringLiteral("v"))->profile, QStringLiteral("vllm"));

    const LoadResult bad = parse("hosts: [{name: h, kind: local}]\n"
                                 "services:\n"
                                 "  - name: e\n"
                                 "    role: engine\n"
                                 "    host: h\n"
                                 "    url: 'http://127.0.0.1:8000'\n"
                                 "    profile: tgi\n");
    ASSERT_EQ(bad.errors.size(), 1) << dump(bad);
    EXPECT_TRUE(isError(bad, 0, 7, 14, "services[0].profile", "unknown profile 'tgi'"))
        << dump(bad);
}
