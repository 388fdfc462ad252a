// Probes over TLS against an opsdeck-sim serving https with certificates made
// by a test CA (openssl): the CA file from the inventory is trusted, the
// system roots are not, a certificate for another name is refused unless
// verification is switched off, and the TLS phase is timed only on a new
// connection (curl's time_appconnect).
#include "probeengine.h"
#include "probetestsupport.h"
#include "simprocess.h"
#include "testcertificates.h"

#include <gtest/gtest.h>

using namespace opsdeck::probes;
using namespace opsdeck::test;
using namespace Qt::StringLiterals;

namespace {

QString httpsUrl(const SimProcess &sim)
{
    return u"https://127.0.0.1:%1"_s.arg(sim.port());
}

bool startTlsSim(SimProcess &sim, const TestCertificates &certs, const QString &name)
{
    return sim.start(simArgs(u"engine"_s, {u"--tls-cert"_s, certs.path(name + u".pem"_s),
                                           u"--tls-key"_s, certs.path(name + u".key"_s)}));
}

} // namespace

TEST(ProbeTls, TheInventorysCaFileIsTrustedAndTlsIsTimedOnNewConnectionsOnly)
{
    TestCertificates certs;
    ASSERT_TRUE(certs.make()) << certs.error().toStdString();
    SimProcess sim;
    ASSERT_TRUE(startTlsSim(sim, certs, u"loopback"_s)) << sim.errorText().toStdString();
    ProbeEngine engine;

    ProbeRequest request = getProbe(httpsUrl(sim), u"/health"_s, ConnectionMode::Reused);
    request.caFile = certs.path(u"ca.pem"_s);
    const ProbeResult first = engine.run(request); // warm-up: the handshake happens here
    ASSERT_TRUE(first.ok()) << first.error.toStdString();
    EXPECT_EQ(first.status, 200);
    EXPECT_GT(first.tlsMs, first.connectMs) << "time_appconnect ends after time_connect";
    EXPECT_GE(first.ttfbMs, first.tlsMs);
    const ProbeResult reused = engine.run(request);
    ASSERT_TRUE(reused.ok()) << reused.error.toStdString();
    EXPECT_TRUE(reused.connectionReused);
    EXPECT_EQ(reused.localPort, first.localPort);
    EXPECT_EQ(reused.tlsMs, 0) << "no handshake on a kept-alive TLS connection";
    EXPECT_EQ(reused.connectMs, 0);

    ProbeRequest systemRoots = getProbe(httpsUrl(sim), u"/health"_s, ConnectionMode::Fresh);
    const ProbeResult untrusted = engine.run(systemRoots);
    EXPECT_FALSE(untrusted.ok());
    EXPECT_EQ(untrusted.status, 0);
    EXPECT_TRUE(untrusted.error.contains(u"certificate"_s, Qt::CaseInsensitive))
        << untrusted.error.toStdString();
}

TEST(ProbeTls, ACertificateForAnotherNameIsRefusedUnlessVerificationIsOff)
{
    TestCertificates certs;
    ASSERT_TRUE(certs.make()) << certs.error().toStdString();
    SimProcess sim;
    ASSERT_TRUE(startTlsSim(sim, certs, u"wrong-name"_s)) << sim.errorText().toStdString();
    ProbeEngine engine;

    ProbeRequest request = getProbe(httpsUrl(sim), u"/health"_s, ConnectionMode::Fresh);
    request.caFile = certs.path(u"ca.pem"_s);
    const ProbeResult refused = engine.run(request);
    EXPECT_FALSE(refused.ok());
    EXPECT_EQ(refused.status, 0);
    EXPECT_TRUE(refused.error.contains(u"127.0.0.1"_s) ||
                refused.error.contains(u"name"_s, Qt::CaseInsensitive))
        << refused.error.toStdString();

    request.verifyTls = false;
    const ProbeResult accepted = engine.run(request);
    EXPECT_TRUE(accepted.ok()) << accepted.error.toStdString();
    EXPECT_EQ(accepted.status, 200);
}
