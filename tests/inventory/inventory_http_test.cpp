// The per-service `http:` block: API key by secret-store name, CA file (a
// real PEM made with openssl; a missing, special or non-PEM file refused),
// verification, timeout and proxy; defaults when absent; a key written in the
// inventory refused at its file:line:column without repeating it.
#include "inventorytest.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <sys/stat.h>

using namespace Qt::StringLiterals;

namespace opsdeck::inventory::test {
namespace {

/// A self-signed CA certificate in PEM at `path`, made with the openssl CLI.
bool makeCaCertificate(const QString &path)
{
    QProcess openssl;
    openssl.start(u"openssl"_s, {u"req"_s, u"-x509"_s, u"-newkey"_s, u"rsa:2048"_s, u"-nodes"_s,
                                 u"-keyout"_s, path + u".key"_s, u"-out"_s, path, u"-days"_s,
                                 u"2"_s, u"-subj"_s, u"/CN=OpsDeck Test CA"_s});
    return openssl.waitForFinished(60000) && openssl.exitStatus() == QProcess::NormalExit &&
           openssl.exitCode() == 0;
}

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
    QTemporaryDir dir;
    ASSERT_TRUE(QDir(dir.path()).mkpath(u"certs"_s));
    const QString relativeCa = dir.filePath(u"certs/ca.pem"_s);
    const QString absoluteCa = dir.filePath(u"other-ca.pem"_s);
    ASSERT_TRUE(makeCaCertificate(relativeCa));
    ASSERT_TRUE(makeCaCertificate(absoluteCa));
    const QByteArray yaml = u"hosts: [{name: h, kind: local}]\n"
                            "services:\n"
                            "  - name: decode-0\n"
                            "    role: decode\n"
                            "    host: h\n"
                            "    url: https://127.0.0.1:30001\n"
                            "    http:\n"
                            "      api_key: secret\n"
                            "      ca_file: certs/ca.pem\n"
                            "      verify_tls: true\n"
                            "      timeout_ms: 1500\n"
                            "      proxy: http://127.0.0.1:8888\n"
                            "  - name: router\n"
                            "    role: router\n"
                            "    host: h\n"
                            "    url: https://127.0.0.1:30002\n"
                            "    http: {api_key: \"secret:http/shared/api-key\", ca_file: %1, "
                            "verify_tls: false}\n"_s.arg(absoluteCa)
                                .toUtf8();
    const LoadResult result = parseInventory(yaml, dir.filePath(u"cluster.yaml"_s));
    ASSERT_TRUE(result.inventory) << dump(result);
    const HttpSettings &decode = result.inventory->services[0].http;
    EXPECT_EQ(decode.apiKeySecret, u"http/decode-0/api-key"_s);
    EXPECT_EQ(decode.caFile, relativeCa); // relative: beside the inventory
    EXPECT_TRUE(decode.verifyTls);
    EXPECT_EQ(decode.timeoutMs, 1500);
    EXPECT_EQ(decode.proxy, QUrl(u"http://127.0.0.1:8888"_s));
    const HttpSettings &router = result.inventory->services[1].http;
    EXPECT_EQ(router.apiKeySecret, u"http/shared/api-key"_s);
    EXPECT_EQ(router.caFile, absoluteCa);
    EXPECT_FALSE(router.verifyTls);
    EXPECT_EQ(router.timeoutMs, 0);
}

TEST(InventoryHttp, AnUnusableCaFileIsReportedAtItsPlace)
{
    QTemporaryDir dir;
    const QString fifo = dir.filePath(u"fifo.pem"_s);
    ASSERT_EQ(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    const QString notPem = dir.filePath(u"key.txt"_s);
    const QString huge = dir.filePath(u"huge.pem"_s);
    {
        QFile text(notPem);
        ASSERT_TRUE(text.open(QIODevice::WriteOnly));
        text.write("not a certificate\n");
        QFile big(huge);
        ASSERT_TRUE(big.open(QIODevice::WriteOnly));
        ASSERT_TRUE(big.resize(1024 * 1024 + 1));
    }
    const QStringList caFiles = {
        dir.filePath(u"missing.pem"_s), dir.path(), fifo, u"/dev/null"_s, notPem, huge};
    QByteArray yaml = "hosts: [{name: h, kind: local}]\nservices:\n";
    for (int i = 0; i < caFiles.size(); ++i)
        yaml += u"  - name: s%1\n    role: engine\n    host: h\n    url: https://127.0.0.1:%2\n"
                "    http:\n      ca_file: %3\n"_s.arg(i)
                    .arg(30001 + i)
                    .arg(caFiles[i])
                    .toUtf8();
    // Must not block on the FIFO: the load would hang here if it opened it.
    const LoadResult result = parseInventory(yaml, inlineFile());
    EXPECT_FALSE(result.inventory);
    ASSERT_EQ(result.errors.size(), caFiles.size()) << dump(result);
    const char *words[] = {"no such file",       "not a regular file", "not a regular file",
                           "not a regular file", "no PEM certificate", "1 MiB"};
    for (int i = 0; i < caFiles.size(); ++i) {
        const std::string field = u"services[%1].http.ca_file"_s.arg(i).toStdString();
        EXPECT_TRUE(isError(result, i, 8 + i * 6, 16, field.c_str(), words[i]));
        EXPECT_TRUE(result.errors[i].message.contains(caFiles[i])) << dump(result);
    }
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

// A hostile inventory once named the audit chain's key as a service's API
// key: OpsDeck sent it as a bearer token, and entries forged with it verified
// as intact. Refused at its place, never read from the store.
TEST(InventoryHttp, TheAuditChainsKeyIsNeverAnApiKey)
{
    const LoadResult result =
        parse("hosts: [{name: h, kind: local}]\n"
              "services: [{name: d, role: decode, host: h, url: 'http://127.0.0.1:30001',\n"
              "            http: {api_key: 'secret:audit/chain-key/0123456789abcdef'}}]\n");
    ASSERT_EQ(result.errors.size(), 1);
    EXPECT_TRUE(isError(result, 0, 3, 29, "services[0].http.api_key",
                        "is the audit log's own secret, never sent to a service"))
        << result.errors[0].toString().toStdString();
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
