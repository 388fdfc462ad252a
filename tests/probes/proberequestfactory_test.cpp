// Probe paths from an inventory and the requests built for each of them.
#include "probepath.h"
#include "proberequestfactory.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace opsdeck;
using namespace opsdeck::probes;
using namespace Qt::StringLiterals;

namespace {

/// The proxy's CA file must be a real PEM for the inventory to load: a
/// self-signed one made with the openssl CLI.
struct CaDir
{
    QTemporaryDir dir;
    QString caFile() const { return dir.filePath(u"ca.pem"_s); }
    CaDir()
    {
        QProcess openssl;
        openssl.start(u"openssl"_s, {u"req"_s, u"-x509"_s, u"-newkey"_s, u"ec"_s, u"-pkeyopt"_s,
                                     u"ec_paramgen_curve:prime256v1"_s, u"-nodes"_s, u"-keyout"_s,
                                     caFile() + u".key"_s, u"-out"_s, caFile(), u"-days"_s, u"2"_s,
                                     u"-subj"_s, u"/CN=OpsDeck Test CA"_s});
        EXPECT_TRUE(openssl.waitForFinished(60000) && openssl.exitCode() == 0)
            << openssl.readAllStandardError().toStdString();
    }
};

inventory::Inventory pdInventory(const CaDir &ca)
{
    const QByteArray yaml = R"(hosts: [{name: local, kind: local}]
services:
  - {name: prefill-0, role: prefill, host: local, url: 'http://127.0.0.1:30000', health_path: /health_generate}
  - {name: decode-0, role: decode, host: local, url: 'http://127.0.0.1:30001/sglang/'}
  - {name: router-0, role: router, host: local, url: 'http://127.0.0.1:8000',
     http: {timeout_ms: 1500, proxy: 'http://127.0.0.1:3128'}}
  - {name: proxy-0, role: proxy, host: local, url: 'https://127.0.0.1:8443',
     http: {ca_file: ca.pem, verify_tls: false, api_key: secret}}
clusters:
  - {name: pd, prefill: [prefill-0], decode: [decode-0], router: router-0, proxy: proxy-0}
  - {name: bare, prefill: [prefill-0], decode: [decode-0]}
)";
    inventory::LoadResult result = inventory::parseInventory(yaml, ca.dir.filePath(u"pd.yaml"_s));
    EXPECT_TRUE(result.errors.isEmpty())
        << (result.errors.isEmpty() ? std::string() : result.errors[0].toString().toStdString());
    return result.inventory.value_or(inventory::Inventory{});
}

} // namespace

TEST(ProbePaths, EnterAtEveryHopOutermostFirst)
{
    const CaDir ca;
    const inventory::Inventory inv = pdInventory(ca);
    ASSERT_TRUE(inv.cluster(u"pd"_s));
    const QVector<ProbePath> paths = probePaths(inv, *inv.cluster(u"pd"_s));
    ASSERT_EQ(paths.size(), 4);
    EXPECT_EQ(paths[0].name, u"via proxy"_s);
    EXPECT_EQ(paths[0].entryService, u"proxy-0"_s);
    EXPECT_EQ(paths[0].entryRole, inventory::Role::Proxy);
    EXPECT_EQ(paths[0].depth, 0);
    EXPECT_EQ(paths[0].hops,
              (QStringList{u"proxy-0"_s, u"router-0"_s, u"prefill-0"_s, u"decode-0"_s}));
    EXPECT_EQ(paths[0].http.caFile, ca.caFile());
    EXPECT_EQ(paths[1].name, u"router direct"_s);
    EXPECT_EQ(paths[1].depth, 1);
    EXPECT_EQ(paths[1].hops, (QStringList{u"router-0"_s, u"prefill-0"_s, u"decode-0"_s}));
    EXPECT_EQ(paths[2].name, u"decode direct"_s);
    EXPECT_EQ(paths[2].entryService, u"decode-0"_s);
    EXPECT_EQ(paths[2].depth, 2);
    EXPECT_EQ(paths[2].hops, QStringList{u"decode-0"_s});
    EXPECT_EQ(paths[3].name, u"prefill direct"_s);
    EXPECT_EQ(paths[3].healthUrl, QUrl(u"http://127.0.0.1:30000/health_generate"_s));

    const QVector<ProbePath> bare = probePaths(inv, *inv.cluster(u"bare"_s));
    ASSERT_EQ(bare.size(), 2);
    EXPECT_EQ(bare[0].name, u"decode direct"_s);
    EXPECT_EQ(bare[1].name, u"prefill direct"_s);
}

TEST(ProbeRequestFactory, TheTinyChatBodyIsExactlyTheIssues)
{
    EXPECT_EQ(
        ChatApi::body(u"Qwen/Qwen3-8B"_s, false),
        QByteArray(R"({"model":"Qwen/Qwen3-8B","messages":[{"role":"user","content":"ping"}],)"
                   R"("max_tokens":8})"));
    EXPECT_EQ(ChatApi::body(u"a\"b"_s, true, 4),
              QByteArray(R"({"model":"a\"b","messages":[{"role":"user","content":"ping"}],)"
                         R"("max_tokens":4,"stream":true})"));
    EXPECT_FALSE(QJsonDocument::fromJson(ChatApi::body(u"a\"b"_s, true)).isNull());
}

TEST(ProbeRequestFactory, RequestsCarryThePathsSettings)
{
    const CaDir ca;
    const inventory::Inventory inv = pdInventory(ca);
    const QVector<ProbePath> paths = probePaths(inv, *inv.cluster(u"pd"_s));
    ProbeRequestFactory proxy(paths[0], "k3y");
    const ProbeRequest chat = proxy.chat(ConnectionMode::Reused, u"m"_s, true);
    EXPECT_EQ(chat.kind, ProbeKind::ChatStream);
    EXPECT_EQ(chat.mode, ConnectionMode::Reused);
    EXPECT_EQ(chat.url, QUrl(u"https://127.0.0.1:8443/v1/chat/completions"_s));
    EXPECT_EQ(chat.apiKey, QByteArray("k3y"));
    EXPECT_EQ(chat.caFile, ca.caFile());
    EXPECT_FALSE(chat.verifyTls);
    EXPECT_TRUE(chat.proxy.isEmpty());
    EXPECT_EQ(chat.timeoutMs, ProbeRequestFactory::kDefaultTimeoutMs);
    EXPECT_EQ(chat.label, u"via proxy"_s);
    EXPECT_TRUE(chat.body.contains("\"stream\":true"));

    ProbeRequestFactory router(paths[1]);
    const ProbeRequest health = router.health(ConnectionMode::Fresh);
    EXPECT_EQ(health.kind, ProbeKind::Get);
    EXPECT_EQ(health.url, QUrl(u"http://127.0.0.1:8000/health"_s));
    EXPECT_EQ(health.proxy, QUrl(u"http://127.0.0.1:3128"_s));
    EXPECT_TRUE(health.apiKey.isEmpty());
    EXPECT_TRUE(health.body.isEmpty());
    EXPECT_EQ(health.timeoutMs, 1500) << "the inventory's timeout_ms wins over the default";
    router.setTimeoutOverrideMs(700);
    EXPECT_EQ(router.health(ConnectionMode::Fresh).timeoutMs, 700);

    // A base URL with a path prefix keeps it.
    const ProbeRequest models = ProbeRequestFactory(paths[2]).models(ConnectionMode::Fresh);
    EXPECT_EQ(models.url, QUrl(u"http://127.0.0.1:30001/sglang/v1/models"_s));
    EXPECT_EQ(ProbeRequestFactory(paths[2]).chat(ConnectionMode::Fresh, u"m"_s).kind,
              ProbeKind::Chat);
}

TEST(ProbeRequestFactory, WithoutSecretsAPathThatNeedsAKeyHasAProblem)
{
    const CaDir ca;
    const inventory::Inventory inv = pdInventory(ca);
    const QVector<ProbePath> paths = probePaths(inv, *inv.cluster(u"pd"_s));
    const ProbeRequestFactory proxy = ProbeRequestFactory::withoutSecrets(paths[0]);
    EXPECT_TRUE(proxy.problem().contains(u"proxy-0"_s)) << proxy.problem().toStdString();
    EXPECT_TRUE(ProbeRequestFactory::withoutSecrets(paths[2]).problem().isEmpty());
}

TEST(ProbeRequestFactory, TheModelIsTheFirstIdOfV1Models)
{
    EXPECT_EQ(
        ChatApi::modelFromModels(
            R"({"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model"},{"id":"x"}]})"),
        u"Qwen/Qwen3-8B"_s);
    EXPECT_TRUE(ChatApi::modelFromModels(R"({"data":[]})").isEmpty());
    EXPECT_TRUE(ChatApi::modelFromModels("not json").isEmpty());
}
