// Valid inventories: every field read, defaults applied, relative paths
// resolved, lookups and URL helpers.
#include "inventorytest.h"
#include "testsupport.h"

#include <QDir>
#include <QFileInfo>
#include <thread>
#include <vector>

using namespace Qt::StringLiterals;

namespace opsdeck::inventory::test {
namespace {

QString dataDir()
{
    return opsdeck::test::dataPath(u"inventory"_s);
}

TEST(InventoryLoad, FullInventoryReadsEveryField)
{
    const LoadResult result = loadInventory(dataDir() + u"/full.yaml"_s);
    ASSERT_TRUE(result.errors.isEmpty()) << dump(result);
    ASSERT_TRUE(result.inventory.has_value());
    const Inventory &inv = *result.inventory;
    EXPECT_EQ(inv.path, QFileInfo(dataDir() + u"/full.yaml"_s).absoluteFilePath());
    EXPECT_TRUE(inv.armed);
    EXPECT_EQ(inv.prometheus, QUrl(u"http://127.0.0.1:9090"_s));

    ASSERT_EQ(inv.hosts.size(), 3);
    EXPECT_EQ(inv.hosts[0].name, u"local"_s);
    EXPECT_EQ(inv.hosts[0].kind, HostKind::Local);
    EXPECT_EQ(inv.hosts[1].name, u"gpu-a"_s);
    EXPECT_EQ(inv.hosts[1].kind, HostKind::Ssh);
    EXPECT_EQ(inv.hosts[1].address, u"gpu-a.example"_s);
    EXPECT_EQ(inv.hosts[1].port, 2222);
    EXPECT_EQ(inv.hosts[1].user, u"ops"_s);
    EXPECT_EQ(inv.hosts[2].address, u"10.0.0.7"_s);
    EXPECT_EQ(inv.hosts[2].port, 22);
    EXPECT_TRUE(inv.hosts[2].user.isEmpty());

    ASSERT_EQ(inv.services.size(), 5);
    const Service &prefill = inv.services[0];
    EXPECT_EQ(prefill.name, u"prefill-0"_s);
    EXPECT_EQ(prefill.role, Role::Prefill);
    EXPECT_EQ(prefill.host, u"gpu-a"_s);
    EXPECT_EQ(prefill.url, QUrl(u"http://gpu-a.example:30000"_s));
    EXPECT_EQ(prefill.healthPath, u"/health_generate"_s);
    EXPECT_EQ(prefill.metricsPath, u"/metrics?name[]=sglang"_s);
    EXPECT_EQ(prefill.start, u"setsid serve/serve_prefill.sh </dev/null >>logs/prefill.log 2>&1 "
                             "& echo $! >run/prefill.pid"_s);
    EXPECT_EQ(prefill.stop, u"kill -TERM -- -$(cat run/prefill.pid)"_s);
    EXPECT_EQ(prefill.status, u"kill -0 $(cat run/prefill.pid)"_s);
    EXPECT_EQ(prefill.tags, (QStringList{u"production"_s, u"gpu"_s}));
    EXPECT_TRUE(prefill.isProduction());

    const Service &decode = inv.services[1];
    EXPECT_EQ(decode.role, Role::Decode);
    EXPECT_EQ(decode.url, QUrl(u"https://gpu-b.example:30001/sglang/"_s));
    EXPECT_EQ(decode.healthPath, u"/health"_s);
    EXPECT_EQ(decode.metricsPath, u"/metrics"_s);
    EXPECT_TRUE(decode.start.isEmpty());
    EXPECT_TRUE(decode.tags.isEmpty());
    EXPECT_FALSE(decode.isProduction());
    EXPECT_EQ(inv.services[2].role, Role::Router);
    EXPECT_EQ(inv.services[3].role, Role::Proxy);
    EXPECT_EQ(inv.services[4].role, Role::Engine);
    EXPECT_EQ(inv.services[4].url.host(), u"::1"_s);

    ASSERT_EQ(inv.clusters.size(), 2);
    const Cluster &main = inv.clusters[0];
    EXPECT_EQ(main.name, u"main"_s);
    EXPECT_EQ(main.prefill, QStringList{u"prefill-0"_s});
    EXPECT_EQ(main.decode, QStringList{u"decode-0"_s});
    EXPECT_EQ(main.router, u"router"_s);
    EXPECT_EQ(main.proxy, u"proxy"_s);
    EXPECT_EQ(main.transferBackend, u"nixl"_s);
    EXPECT_TRUE(inv.clusters[1].router.isEmpty());
    EXPECT_TRUE(inv.clusters[1].proxy.isEmpty());
    EXPECT_TRUE(inv.clusters[1].transferBackend.isEmpty());
}

TEST(InventoryLoad, RelativePathsResolveAgainstTheInventoryDirectory)
{
    const LoadResult result = loadInventory(dataDir() + u"/full.yaml"_s);
    ASSERT_TRUE(result.inventory.has_value()) << dump(result);
    const QString dir = QFileInfo(dataDir()).absoluteFilePath();
    const Service &prefill = result.inventory->services[0];
    EXPECT_EQ(prefill.serveScript, dir + u"/serve/serve_prefill.sh"_s);
    EXPECT_EQ(prefill.pidFile, dir + u"/run/prefill.pid"_s);  // cleaned: run/../run
    EXPECT_EQ(prefill.log, u"/var/log/sglang/prefill.log"_s); // absolute: kept
    const Service &decode = result.inventory->services[1];
    EXPECT_EQ(decode.log, QDir::cleanPath(dir + u"/../logs/decode.log"_s));
    // For the host's shell to expand; a local directory in front would break it.
    EXPECT_EQ(decode.serveScript, u"~/serve/serve_decode.sh"_s);
    EXPECT_EQ(decode.pidFile, u"/home/sglang/run/decode.pid"_s); // absolute: kept
    // Commands are run as written.
    EXPECT_TRUE(prefill.start.startsWith(u"setsid serve/"_s));
}

TEST(InventoryLoad, ParseResolvesAgainstTheGivenPath)
{
    const LoadResult result = parseInventory(
        "hosts: [{name: h, kind: local}]\n"
        "services: [{name: e, role: engine, host: h, url: 'http://127.0.0.1:1', log: e.log}]\n",
        u"/srv/opsdeck/inventory.yaml"_s);
    ASSERT_TRUE(result.inventory.has_value()) << dump(result);
    EXPECT_EQ(result.inventory->path, u"/srv/opsdeck/inventory.yaml"_s);
    EXPECT_EQ(result.inventory->services[0].log, u"/srv/opsdeck/e.log"_s);
    EXPECT_FALSE(result.inventory->armed);
    EXPECT_TRUE(result.inventory->prometheus.isEmpty());
    EXPECT_TRUE(result.inventory->clusters.isEmpty());

    const LoadResult relative = parseInventory("hosts: []\n", u"inv.yaml"_s);
    ASSERT_TRUE(relative.inventory.has_value()) << dump(relative);
    EXPECT_EQ(relative.inventory->path, QDir::current().absoluteFilePath(u"inv.yaml"_s));
}

TEST(InventoryLoad, TwoHostLayoutWithLocalEdgeAndSshGpuHost)
{
    const LoadResult result = loadInventory(dataDir() + u"/two-host.yaml"_s);
    ASSERT_TRUE(result.inventory.has_value()) << dump(result);
    const Inventory &inv = *result.inventory;
    EXPECT_FALSE(inv.armed);
    ASSERT_EQ(inv.hosts.size(), 2);
    EXPECT_EQ(inv.host(u"edge"_s)->kind, HostKind::Local);
    const Host *gpu = inv.host(u"gpu-1"_s);
    ASSERT_NE(gpu, nullptr);
    EXPECT_EQ(gpu->kind, HostKind::Ssh);
    EXPECT_EQ(gpu->address, u"gpu-1.lab.example"_s);
    EXPECT_EQ(gpu->port, 22);
    EXPECT_EQ(gpu->user, u"ops"_s);

    const Cluster *main = inv.cluster(u"main"_s);
    ASSERT_NE(main, nullptr);
    EXPECT_EQ(main->transferBackend, u"mooncake"_s);
    const Service *prefill = inv.service(main->prefill.value(0));
    const Service *decode = inv.service(main->decode.value(0));
    const Service *router = inv.service(main->router);
    const Service *proxy = inv.service(main->proxy);
    ASSERT_TRUE(prefill && decode && router && proxy);
    EXPECT_EQ(prefill->host, u"gpu-1"_s);
    EXPECT_EQ(decode->host, u"gpu-1"_s);
    EXPECT_EQ(router->host, u"edge"_s);
    EXPECT_EQ(proxy->host, u"edge"_s);
    EXPECT_EQ(inv.firstDecode(), decode);
    EXPECT_EQ(decode->healthUrl(), QUrl(u"http://gpu-1.lab.example:30001/health"_s));
    EXPECT_EQ(decode->metricsUrl(), QUrl(u"http://gpu-1.lab.example:30001/metrics"_s));
    EXPECT_EQ(decode->start, u"setsid /opt/serve/serve_decode.sh </dev/null "
                             ">>/var/log/sglang/decode.log 2>&1 & echo $! "
                             ">/run/sglang/decode.pid"_s);
    EXPECT_EQ(decode->stop, u"kill -TERM -- -$(cat /run/sglang/decode.pid)"_s);
    EXPECT_EQ(decode->status, u"kill -0 $(cat /run/sglang/decode.pid)"_s);
    EXPECT_EQ(decode->pidFile, u"/run/sglang/decode.pid"_s);
    EXPECT_EQ(decode->log, u"/var/log/sglang/decode.log"_s);
    EXPECT_TRUE(decode->isProduction());
    EXPECT_TRUE(router->stop.isEmpty()); // falls back to the pid file
    EXPECT_EQ(proxy->url.scheme(), u"https"_s);
}

TEST(InventoryLoad, HealthAndMetricsUrlsJoinThePathPrefix)
{
    Service service;
    service.url = QUrl(u"https://gpu-b.example:30001/sglang/"_s);
    EXPECT_EQ(service.healthUrl(), QUrl(u"https://gpu-b.example:30001/sglang/health"_s));
    service.metricsPath = u"/metrics?name[]=sglang"_s;
    const QUrl metrics = service.metricsUrl();
    EXPECT_EQ(metrics.path(), u"/sglang/metrics"_s);
    EXPECT_EQ(metrics.query(), u"name[]=sglang"_s);
    service.url = QUrl(u"http://127.0.0.1:30000"_s);
    EXPECT_EQ(service.healthUrl().toString(), u"http://127.0.0.1:30000/health"_s);
}

TEST(InventoryLoad, NamesRoundTrip)
{
    for (Role role : {Role::Prefill, Role::Decode, Role::Router, Role::Proxy, Role::Engine})
        EXPECT_EQ(roleFromName(roleName(role)), role);
    EXPECT_EQ(roleName(Role::Decode), u"decode"_s);
    EXPECT_FALSE(roleFromName(u"Decode"_s).has_value());
    EXPECT_FALSE(roleFromName(u"decoder"_s).has_value());
    EXPECT_EQ(hostKindFromName(hostKindName(HostKind::Ssh)), HostKind::Ssh);
    EXPECT_EQ(hostKindFromName(u"local"_s), HostKind::Local);
    EXPECT_FALSE(hostKindFromName(u"SSH"_s).has_value());
}

TEST(InventoryLoad, LookupsReturnNullForUnknownNames)
{
    Inventory inv;
    EXPECT_EQ(inv.host(u"x"_s), nullptr);
    EXPECT_EQ(inv.service(u"x"_s), nullptr);
    EXPECT_EQ(inv.cluster(u"x"_s), nullptr);
    EXPECT_EQ(inv.firstDecode(), nullptr);
    Service decode;
    decode.name = u"d"_s;
    decode.role = Role::Decode;
    inv.services = {Service{}, decode};
    EXPECT_EQ(inv.firstDecode(), &inv.services[1]); // no cluster: first decode service
}

TEST(InventoryLoad, ToStringHasTheCompilerForm)
{
    EXPECT_EQ((ValidationError{u"a.yaml"_s, 3, 7, u"services[2].url"_s, u"bad"_s}.toString()),
              u"a.yaml:3:7: services[2].url: bad"_s);
    EXPECT_EQ((ValidationError{u"a.yaml"_s, 3, 0, {}, u"bad"_s}.toString()), u"a.yaml:3: bad"_s);
    EXPECT_EQ((ValidationError{u"a.yaml"_s, 0, 0, {}, u"gone"_s}.toString()), u"a.yaml: gone"_s);
}

TEST(InventoryLoad, ConcurrentLoadsShareNothing)
{
    const QString path = dataDir() + u"/two-host.yaml"_s;
    std::vector<int> services(4, -1);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < services.size(); ++i) {
        threads.emplace_back([&services, &path, i] {
            for (int round = 0; round < 20; ++round) {
                const LoadResult result = loadInventory(path);
                services[i] = result.inventory ? int(result.inventory->services.size()) : -2;
            }
        });
    }
    for (std::thread &thread : threads)
        thread.join();
    EXPECT_EQ(services, std::vector<int>(4, 4));
}

} // namespace
} // namespace opsdeck::inventory::test
