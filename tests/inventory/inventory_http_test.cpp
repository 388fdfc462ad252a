// The per-service `http:` block: API key by secret-store name, CA file,
// verification, timeout and proxy; defaults when absent; a key written in the
// inventory refused at its file:line:column without repeating it.
#include "inventorytest.h"

using namespace Qt::StringLiterals;

namespace opsdeck::inventory::test {
namespace {

TEST(InventoryHttp, DefaultsWhenAbsent)
{
    const LoadResult result = parse(R"(
hosts: [{name: h, kind: local}]
services:
  - {name: decode-0, role: decode, host: h, url: 'http://127.0.0.1:30001'}
)");
    ASSERT_TRUE(result.inventory) << dump(result);
    const HttpSettings &http = result.inventory->services[0].http;
    EXPECT_TRUE(http.apiKeySecret.isEmpty());
    EXPECT_TRUE(http.caFile.isEmpty());
    EXPECT_TRUE(http.verifyTls);
    EXPECT_EQ(http.timeoutMs, 0);
    EXPECT_TRUE(http.proxy.isEmpty());
}

TEST(InventoryHttp, ReadsEveryField)
{
    const QByteArray yaml = R"(hosts: [{name: h, kind: local}]
services:
  - name: decode-0
    role: decode
    host: h
    url: https://127.0.0.1:30001
    http:
      api_key: secret
      ca_file: certs/ca.pem
      verify_tls: true
      timeout_ms: 1500
      proxy: http://127.0.0.1:8888
  - name: router
    role: router
    host: h
    url: https://127.0.0.1:30002
    http: {api_key: "secret:http/shared/api-key", ca_file: /etc/ssl/ca.pem, verify_tls: false}
)";
    const LoadResult result = parseInventory(yaml, u"/srv/inv/cluster.yaml"_s);
    ASSERT_TRUE(result.inventory) << dump(result);
    const HttpSettings &decode = result.inventory->services[0].http;
    EXPECT_EQ(decode.apiKeySecret, u"http/decode-0/api-key"_s);
    EXPECT_EQ(decode.caFile, u"/srv/inv/certs/ca.pem"_s); // relative: beside the inventory
    EXPECT_TRUE(decode.verifyTls);
    EXPECT_EQ(decode.timeoutMs, 1500);
    EXPECT_EQ(decode.proxy, QUrl(u"http://127.0.0.1:8888"_s));
    const HttpSettings &router = result.inventory->services[1].http;
    EXPECT_EQ(router.apiKeySecret, u"http/shared/api-key"_s);
    EXPECT_EQ(router.caFile, u"/etc/ssl/ca.pem"_s);
    EXPECT_FALSE(router.verifyTls);
    EXPECT_EQ(router.timeoutMs, 0);
}

TEST(InventoryHttp, ALiteralKeyIsRefusedAtItsPlaceWithoutRepeatingIt)
{
    const LoadResult result = parse(R"(
hosts: [{name: h, kind: local}]
services:
  - name: decode-0
    role: decode
    host: h
    url: http://127.0.0.1:30001
    http:
      api_key: sk-live-1234567890
)");
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_TRUE(
        isError(result, 0, 8, 16, "services[0].http.api_key", "keys never live in the inventory"));
    EXPECT_TRUE(result.errors[0].message.contains(u"http/decode-0/api-key"_s));
    EXPECT_FALSE(result.errors[0].toString().contains(u"sk-live"_s));
}

TEST(InventoryHttp, BadValuesAreReportedWithTheirPlace)
{
    const LoadResult result = parse(R"(
hosts: [{name: h, kind: local}]
services:
  - name: d
    role: decode
    host: h
    url: http://127.0.0.1:30001
    http:
      api_key: "secret:"
      verify_tls: maybe
      timeout_ms: 0
      proxy: https://127.0.0.1:3128
      verfy_tls: true
  - name: e
    role: engine
    host: h
    url: http://127.0.0.1:30002
    http: [api_key]
)");
    ASSERT_EQ(result.errors.size(), 6) << dump(result);
    EXPECT_TRUE(isError(result, 0, 8, 16, "services[0].http.api_key", "key name without spaces"));
    EXPECT_TRUE(isError(result, 1, 9, 19, "services[0].http.verify_tls", "expected true or false"));
    EXPECT_TRUE(isError(result, 2, 10, 19, "services[0].http.timeout_ms", "out of range"));
    EXPECT_TRUE(isError(result, 3, 11, 14, "services[0].http.proxy", "http://HOST:PORT"));
    EXPECT_TRUE(
        isError(result, 4, 12, 7, "services[0].http.verfy_tls", "did you mean 'verify_tls'"));
    EXPECT_TRUE(isError(result, 5, 17, 11, "services[1].http", "expected a mapping"));
}

} // namespace
} // namespace opsdeck::inventory::test
