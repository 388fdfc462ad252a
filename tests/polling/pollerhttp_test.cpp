// The poller's per-service HTTP settings against real components on
// loopback: an opsdeck-sim with --api-key (the key read from the real
// gnome-keyring of the test session), with --tls-cert/--tls-key (a CA and
// certificates made by `openssl req` here), and a real tinyproxy started with
// its own config. Every test captures spdlog and checks the key never shows.
#include "logcapture.h"
#include "pollerthread.h"
#include "secretstore.h"
#include "servicepoller.h"
#include "simprocess.h"
#include "testcertificates.h"
#include "testsupport.h"
#include "tinyproxy.h"

#include <QCoreApplication>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <gtest/gtest.h>
#include <httplib.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sstream>
#include <sys/stat.h>

using namespace opsdeck;
using namespace Qt::StringLiterals;
using opsdeck::probes::ServiceState;
using opsdeck::test::TestCertificates;
using opsdeck::test::Tinyproxy;
using opsdeck::test::waitUntil;

using opsdeck::test::LogCapture;

namespace {

const QByteArray apiKey = QByteArrayLiteral("sk-opsdeck-test-9f3c2a71");

// Names carry the pid: runs never share keyring entries.
QString serviceName(const QString &what)
{
    return u"%1-%2"_s.arg(what).arg(QCoreApplication::applicationPid());
}

inventory::Service decodeService(const QString &name, const QString &url)
{
    inventory::Service s;
    s.name = name;
    s.role = inventory::Role::Decode;
    s.url = QUrl(url);
    // SGLang leaves /health open under --api-key; /v1/models is guarded.
    s.healthPath = u"/v1/models"_s;
    return s;
}

/// Polls one service until its status satisfies `done` (or 15 s pass); returns the last status.
probes::ServiceStatus pollUntil(const inventory::Service &service,
                                const std::function<bool(const probes::ServiceStatus &)> &done,
                                QStringList *loadFailures = nullptr, int *loads = nullptr)
{
    probes::ServicePoller poller;
    probes::ServicePoller::Settings settings;
    settings.intervalMs = 200;
    poller.setSettings(settings);
    probes::ServiceStatus last;
    QObject::connect(&poller, &probes::ServicePoller::statusChecked, &poller,
                     [&last](const probes::ServiceStatus &status) { last = status; });
    QObject::connect(&poller, &probes::ServicePoller::loadFailed, &poller,
                     [loadFailures](const QString &, const QString &reason) {
                         if (loadFailures)
                             loadFailures->append(reason);
                     });
    QObject::connect(&poller, &probes::ServicePoller::loadSampled, &poller,
                     [loads](const probes::LoadSample &) {
                         if (loads)
                             ++*loads;
                     });
    poller.setServices({service});
    poller.start();
    waitUntil([&] { return last.lastCheck.isValid() && done(last); }, std::chrono::seconds(15));
    poller.stop();
    return last;
}

class PollerHttp : public ::testing::Test
{
protected:
    void TearDown() override
    {
        const std::string logged = m_log.text();
        EXPECT_EQ(logged.find(apiKey.toStdString()), std::string::npos) << logged;
        for (const QString &key : std::as_const(m_keys))
            m_store.removeBlocking(key);
    }
    bool storeKey(const QString &service)
    {
        const QString key = secrets::SecretStore::httpApiKeyName(service);
        m_keys.append(key);
        return m_store.writeBlocking(key, apiKey).ok();
    }
    bool startSim(test::SimProcess &sim, const QStringList &extra)
    {
        const bool started = sim.start(
            QStringList{u"--role"_s, u"decode"_s, u"--port"_s, u"0"_s, u"--ready-delay"_s, u"0"_s} +
            extra);
        EXPECT_TRUE(started) << sim.errorText().toStdString();
        return started;
    }

    LogCapture m_log;
    secrets::SecretStore m_store{secrets::SecretStore::Settings{}, nullptr};
    QStringList m_keys;
};

} // namespace

TEST_F(PollerHttp, SendsTheApiKeyFromTheSecretStore)
{
    test::SimProcess sim;
    ASSERT_TRUE(startSim(sim, {u"--api-key"_s, QString::fromLatin1(apiKey)}));
    inventory::Service service = decodeService(serviceName(u"decode"_s), sim.url());
    service.http.apiKeySecret = secrets::SecretStore::httpApiKeyName(service.name);
    ASSERT_TRUE(storeKey(service.name));

    int loads = 0;
    const auto status = pollUntil(
        service, [&](const probes::ServiceStatus &s) { return s.httpStatus == 200 && loads > 0; },
        nullptr, &loads);
    EXPECT_EQ(status.state, ServiceState::Healthy) << status.detail.toStdString();
    EXPECT_EQ(status.httpStatus, 200);
    EXPECT_GT(loads, 0) << "/v1/loads is guarded by the key too";
    EXPECT_FALSE(status.detail.contains(QString::fromLatin1(apiKey)));
}

TEST_F(PollerHttp, WithoutAKeyTheSimsRefusalIsShown)
{
    test::SimProcess sim;
    ASSERT_TRUE(startSim(sim, {u"--api-key"_s, QString::fromLatin1(apiKey)}));
    const inventory::Service service = decodeService(serviceName(u"nokey"_s), sim.url());
    QStringList loadFailures;
    const auto status = pollUntil(
        service,
        [&](const probes::ServiceStatus &s) {
            return s.httpStatus == 401 && !loadFailures.isEmpty();
        },
        &loadFailures);
    EXPECT_EQ(status.state, ServiceState::Unhealthy);
    EXPECT_EQ(status.httpStatus, 401);
    EXPECT_TRUE(status.detail.startsWith(u"HTTP 401"_s)) << status.detail.toStdString();
    ASSERT_FALSE(loadFailures.isEmpty());
    EXPECT_EQ(loadFailures.first(), u"HTTP 401"_s);
}

TEST_F(PollerHttp, AKeyMissingFromTheStoreIsAClearPerServiceError)
{
    test::SimProcess sim;
    ASSERT_TRUE(startSim(sim, {u"--api-key"_s, QString::fromLatin1(apiKey)}));
    inventory::Service service = decodeService(serviceName(u"decode-0"_s), sim.url());
    service.http.apiKeySecret = secrets::SecretStore::httpApiKeyName(service.name);
    const auto status =
        pollUntil(service, [](const probes::ServiceStatus &s) { return !s.detail.isEmpty(); });
    EXPECT_EQ(status.httpStatus, 0);
    EXPECT_TRUE(status.detail.startsWith(u"service %1: API key http/%1/api-key is not in the "
                                         "secret store"_s.arg(service.name)))
        << status.detail.toStdString();
    EXPECT_NE(m_log.text().find("is not in the secret store"), std::string::npos);
}

TEST_F(PollerHttp, TlsIsVerifiedAgainstTheInventorysCaFile)
{
    TestCertificates certs;
    ASSERT_TRUE(certs.make()) << certs.error().toStdString();
    test::SimProcess sim;
    ASSERT_TRUE(startSim(sim, {u"--tls-cert"_s, certs.path(u"loopback.pem"_s), u"--tls-key"_s,
                               certs.path(u"loopback.key"_s)}));
    const QString url = u"https://127.0.0.1:%1"_s.arg(sim.port());

    inventory::Service trusted = decodeService(serviceName(u"tls-ca"_s), url);
    trusted.http.caFile = certs.path(u"ca.pem"_s);
    const auto ok =
        pollUntil(trusted, [](const probes::ServiceStatus &s) { return s.httpStatus == 200; });
    EXPECT_EQ(ok.state, ServiceState::Healthy) << ok.detail.toStdString();

    // Without the CA file only the system roots are trusted: refused, with the reason.
    const inventory::Service untrusted = decodeService(serviceName(u"tls-system"_s), url);
    const auto refused =
        pollUntil(untrusted, [](const probes::ServiceStatus &s) { return !s.detail.isEmpty(); });
    EXPECT_EQ(refused.httpStatus, 0);
    EXPECT_TRUE(
        refused.detail.startsWith(u"service %1: TLS verification failed: "_s.arg(untrusted.name)))
        << refused.detail.toStdString();
    EXPECT_NE(refused.state, ServiceState::Healthy);

    // Switching verification off is the inventory's explicit choice.
    inventory::Service unverified = decodeService(serviceName(u"tls-off"_s), url);
    unverified.http.verifyTls = false;
    const auto off =
        pollUntil(unverified, [](const probes::ServiceStatus &s) { return s.httpStatus == 200; });
    EXPECT_EQ(off.state, ServiceState::Healthy) << off.detail.toStdString();
}

TEST_F(PollerHttp, ACertificateForAnotherHostNameIsRefused)
{
    TestCertificates certs;
    ASSERT_TRUE(certs.make()) << certs.error().toStdString();
    test::SimProcess sim;
    ASSERT_TRUE(startSim(sim, {u"--tls-cert"_s, certs.path(u"wrong-name.pem"_s), u"--tls-key"_s,
                               certs.path(u"wrong-name.key"_s)}));
    inventory::Service service =
        decodeService(serviceName(u"tls-name"_s), u"https://127.0.0.1:%1"_s.arg(sim.port()));
    service.http.caFile = certs.path(u"ca.pem"_s);
    const auto status =
        pollUntil(service, [](const probes::ServiceStatus &s) { return !s.detail.isEmpty(); });
    EXPECT_EQ(status.httpStatus, 0);
    EXPECT_TRUE(
        status.detail.startsWith(u"service %1: TLS verification failed: "_s.arg(service.name)))
        << status.detail.toStdString();
    EXPECT_TRUE(status.detail.contains(u"host name"_s, Qt::CaseInsensitive))
        << status.detail.toStdString();
}

TEST_F(PollerHttp, GoesThroughTheInventorysProxyOnly)
{
    Tinyproxy proxy;
    ASSERT_TRUE(proxy.start()) << proxy.log().toStdString();
    test::SimProcess sim;
    ASSERT_TRUE(startSim(sim, {u"--api-key"_s, QString::fromLatin1(apiKey)}));
    inventory::Service service = decodeService(serviceName(u"proxied"_s), sim.url());
    service.http.apiKeySecret = secrets::SecretStore::httpApiKeyName(service.name);
    service.http.proxy = proxy.url();
    ASSERT_TRUE(storeKey(service.name));

    const auto status =
        pollUntil(service, [](const probes::ServiceStatus &s) { return s.httpStatus == 200; });
    EXPECT_EQ(status.state, ServiceState::Healthy) << status.detail.toStdString();
    const QByteArray line = "GET " + sim.url().toLatin1() + "/v1/models HTTP/1.1";
    EXPECT_TRUE(waitUntil([&] { return proxy.log().contains(line); }, std::chrono::seconds(5)))
        << proxy.log().toStdString();
    EXPECT_FALSE(proxy.log().contains(apiKey));

    // A service without a proxy is reached directly, even with a proxy in the environment.
    const QByteArray before = proxy.log();
    qputenv("http_proxy", proxy.url().toString().toLatin1());
    qputenv("HTTP_PROXY", proxy.url().toString().toLatin1());
    inventory::Service direct = decodeService(serviceName(u"direct"_s), sim.url());
    direct.healthPath = u"/health"_s;
    const auto directStatus =
        pollUntil(direct, [](const probes::ServiceStatus &s) { return s.httpStatus == 200; });
    qunsetenv("http_proxy");
    qunsetenv("HTTP_PROXY");
    EXPECT_EQ(directStatus.state, ServiceState::Healthy);
    EXPECT_FALSE(proxy.log().mid(before.size()).contains("/health"));
}

// The sim's --api-key leaves open what SGLang's add_api_key_middleware leaves
// open (OPTIONS, /health*, /metrics*) and refuses the rest without the key.
TEST_F(PollerHttp, SimApiKeyGuardsAsSglangDoes)
{
    test::SimProcess sim;
    ASSERT_TRUE(startSim(sim, {u"--api-key"_s, QString::fromLatin1(apiKey)}));
    httplib::Client client("127.0.0.1", sim.port());
    client.set_read_timeout(10, 0);
    for (const char *open : {"/health", "/health_generate", "/metrics"}) {
        const auto res = client.Get(open);
        ASSERT_TRUE(res) << open;
        EXPECT_NE(res->status, 401) << open;
    }
    const auto refused = client.Get("/v1/models");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 401);
    EXPECT_EQ(refused->body, R"({"error":"Unauthorized"})");
    const auto wrong = client.Get("/v1/models", {{"Authorization", "Bearer not-the-key"}});
    ASSERT_TRUE(wrong);
    EXPECT_EQ(wrong->status, 401);
    const auto right =
        client.Get("/v1/models", {{"Authorization", "Bearer " + apiKey.toStdString()}});
    ASSERT_TRUE(right);
    EXPECT_EQ(right->status, 200);
    const auto options = client.Options("/v1/models");
    ASSERT_TRUE(options);
    EXPECT_NE(options->status, 401);
}

TEST(SimTlsOptions, CertificateAndKeyGoTogether)
{
    QProcess sim;
    sim.start(test::binPath(u"opsdeck-sim"_s),
              {u"--role"_s, u"decode"_s, u"--port"_s, u"0"_s, u"--tls-cert"_s, u"x.pem"_s});
    ASSERT_TRUE(sim.waitForFinished(10000));
    EXPECT_EQ(sim.exitCode(), 2);
    EXPECT_TRUE(sim.readAllStandardError().contains("--tls-cert and --tls-key go together"));

    sim.start(test::binPath(u"opsdeck-sim"_s),
              {u"--role"_s, u"decode"_s, u"--port"_s, u"0"_s, u"--tls-cert"_s,
               u"/nonexistent/cert.pem"_s, u"--tls-key"_s, u"/nonexistent/key.pem"_s});
    ASSERT_TRUE(sim.waitForFinished(10000));
    EXPECT_EQ(sim.exitCode(), 2);
    EXPECT_TRUE(sim.readAllStandardError().contains(
        "--tls-cert '/nonexistent/cert.pem' is not a regular file"));
}

// A FIFO as the certificate blocked the sim in open(), deaf to SIGTERM; an
// empty key served without auth; a NaN stall was quietly no fault at all.
TEST(SimTlsOptions, FifoCertificateEmptyKeyAndNanStallAreRefused)
{
    QTemporaryDir dir;
    const QString fifo = dir.filePath(u"cert.pem"_s);
    ASSERT_EQ(mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    const QList<QStringList> bad = {
        {u"--tls-cert"_s, fifo, u"--tls-key"_s, fifo},
        {u"--api-key"_s, QString()},
        {u"--fault"_s, u"reused-stall=nan"_s},
        {u"--fault"_s, u"reused-stall=inf"_s},
    };
    for (const QStringList &extra : bad) {
        QProcess sim;
        sim.start(test::binPath(u"opsdeck-sim"_s),
                  QStringList{u"--role"_s, u"decode"_s, u"--port"_s, u"0"_s} + extra);
        ASSERT_TRUE(sim.waitForFinished(10000)) << extra.join(u' ').toStdString();
        EXPECT_EQ(sim.exitCode(), 2) << extra.join(u' ').toStdString();
    }
}

// The console's shape: the poller on its own thread reads the key through the
// shared store, whose QtKeychain jobs run on this (the main) thread.
TEST_F(PollerHttp, APollerOnItsOwnThreadGetsTheKey)
{
    test::SimProcess sim;
    ASSERT_TRUE(startSim(sim, {u"--api-key"_s, QString::fromLatin1(apiKey)}));
    inventory::Service service = decodeService(serviceName(u"threaded"_s), sim.url());
    service.http.apiKeySecret = secrets::SecretStore::httpApiKeyName(service.name);
    ASSERT_TRUE(storeKey(service.name));

    probes::PollerThread thread;
    QObject context;
    probes::ServiceStatus last;
    QObject::connect(thread.poller(), &probes::ServicePoller::statusChecked, &context,
                     [&last](const probes::ServiceStatus &status) { last = status; });
    thread.setServices({service});
    thread.start();
    EXPECT_TRUE(waitUntil([&] { return last.httpStatus == 200; }, std::chrono::seconds(15)))
        << last.detail.toStdString();
    EXPECT_EQ(last.state, ServiceState::Healthy);
}
