// HostConnections against a real sshd: an unknown host key is put to the
// operator (the dialog's question) and written to the audit log; accepting
// saves exactly that key; a `via:` service is polled through a tunnel.
#include "auditlog.h"
#include "hostconnections.h"
#include "hostkeyauditor.h"
#include "pollerthread.h"
#include "servicepoller.h"
#include "simprocess.h"
#include "sshfixture.h"
#include "sshtunnel.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace std::chrono_literals;
using opsdeck::hosts::HostConnections;
using opsdeck::remote::SshConnectionState;
using opsdeck::test::SimProcess;
using opsdeck::test::SshdProcess;

namespace {

struct HostsSetup
{
    QTemporaryDir dir;
    std::shared_ptr<opsdeck::history::AuditLog> audit;
    HostConnections::Options options;
    opsdeck::inventory::Inventory inventory;
};

// One ssh host, the test sshd, reached by the inventory's address and port.
void prepare(HostsSetup &s, const SshdProcess &sshd, const QString &knownHosts)
{
    s.audit = std::make_shared<opsdeck::history::AuditLog>(
        opsdeck::history::AuditLog::pathIn(s.dir.path()));
    s.options.sshConfigFile = sshd.sshConfig();
    s.options.knownHostsFile = knownHosts;
    s.options.sshDirectory = sshd.sshDirectory();
    s.options.auditor = std::make_shared<opsdeck::hosts::HostKeyAuditor>(s.audit);
    s.options.decorate = [&sshd](opsdeck::remote::SshSettings &settings) {
        settings.identityFiles = {sshd.clientKey()};
        settings.useAgent = false;
    };
    opsdeck::inventory::Host host;
    host.name = QStringLiteral("gpu-1");
    host.kind = opsdeck::inventory::HostKind::Ssh;
    host.address = QStringLiteral("127.0.0.1");
    host.port = sshd.port();
    host.user = sshd.loginUser();
    s.inventory.hosts = {host};
}

QStringList actions(const opsdeck::history::AuditLog &log)
{
    QStringList list;
    for (const auto &entry : log.read())
        list << entry.action;
    return list;
}

} // namespace

TEST(HostConnections, UnknownKeyIsAskedAuditedAndSavedOnlyWhenAccepted)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    HostsSetup s;
    const QString knownHosts = s.dir.filePath(QStringLiteral("known_hosts"));
    prepare(s, sshd, knownHosts);
    HostConnections hosts(s.options);
    QSignalSpy asked(&hosts, &HostConnections::hostKeyUnknown);
    hosts.setInventory(s.inventory);
    ASSERT_TRUE(opsdeck::test::waitUntil([&] { return asked.count() == 1; }, 20s));

    const auto state = asked.at(0).at(1).value<SshConnectionState>();
    EXPECT_EQ(asked.at(0).at(0).toString(), QStringLiteral("gpu-1"));
    EXPECT_EQ(state.hostKeyFingerprint, sshd.hostKeyFingerprint());
    EXPECT_EQ(state.hostKeyType, QStringLiteral("ssh-ed25519"));
    EXPECT_EQ(state.hostEntry, sshd.hostEntry());
    EXPECT_TRUE(state.hostKeyUnknown);
    EXPECT_EQ(hosts.state(QStringLiteral("gpu-1")).phase, SshConnectionState::Phase::Failed);
    EXPECT_FALSE(QFile::exists(knownHosts) &&
                 opsdeck::test::readFile(knownHosts).contains(sshd.hostEntry().toUtf8()));
    s.options.auditor->flush(); // refusals are written on the auditor's thread
    EXPECT_EQ(actions(*s.audit), QStringList{QStringLiteral("refused-unknown")});

    hosts.acceptHostKey(QStringLiteral("gpu-1"), state.hostKeyFingerprint);
    ASSERT_TRUE(opsdeck::test::waitUntil(
        [&] {
            return hosts.state(QStringLiteral("gpu-1")).phase ==
                   SshConnectionState::Phase::Connected;
        },
        20s))
        << hosts.describe(QStringLiteral("gpu-1")).toStdString();
    EXPECT_TRUE(opsdeck::test::readFile(knownHosts).contains(sshd.hostEntry().toUtf8()));
    s.options.auditor->flush();
    EXPECT_EQ(actions(*s.audit), (QStringList{QStringLiteral("refused-unknown"),
                                              QStringLiteral("accepted-by-operator"),
                                              QStringLiteral("accepted-new")}));
    EXPECT_EQ(s.audit->verify(), QString());
    EXPECT_EQ(asked.count(), 1) << "asked once per key";
}

TEST(HostConnections, RefusedKeyStaysFailedAndTheAnswerIsAudited)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    HostsSetup s;
    prepare(s, sshd, s.dir.filePath(QStringLiteral("known_hosts")));
    HostConnections hosts(s.options);
    QSignalSpy asked(&hosts, &HostConnections::hostKeyUnknown);
    hosts.setInventory(s.inventory);
    ASSERT_TRUE(opsdeck::test::waitUntil([&] { return asked.count() == 1; }, 20s));
    hosts.refuseHostKey(QStringLiteral("gpu-1"));
    s.options.auditor->flush(); // refusals are written on the auditor's thread
    EXPECT_EQ(actions(*s.audit), (QStringList{QStringLiteral("refused-unknown"),
                                              QStringLiteral("refused-by-operator")}));
    EXPECT_EQ(hosts.state(QStringLiteral("gpu-1")).failure,
              SshConnectionState::Failure::HostKeyRefused);
    EXPECT_TRUE(hosts.describe(QStringLiteral("gpu-1")).startsWith(QStringLiteral("failed: ")));
}

TEST(HostConnections, ViaServiceIsPolledThroughTheTunnel)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    SimProcess sim;
    ASSERT_TRUE(sim.start(opsdeck::test::simArgs(QStringLiteral("decode"))))
        << sim.errorText().toStdString();
    HostsSetup s;
    prepare(s, sshd, sshd.knownHosts());
    opsdeck::inventory::Service service;
    service.name = QStringLiteral("decode-0");
    service.role = opsdeck::inventory::Role::Decode;
    service.host = QStringLiteral("gpu-1");
    service.via = QStringLiteral("gpu-1");
    service.url = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(sim.port()));
    s.inventory.services = {service};

    HostConnections hosts(s.options);
    hosts.setInventory(s.inventory);
    const auto routed = hosts.routed();
    const auto &through = routed.services.at(0);
    EXPECT_EQ(through.directUrl, service.url);
    EXPECT_EQ(through.url.host(), QStringLiteral("127.0.0.1"));
    EXPECT_NE(through.url.port(), sim.port());

    opsdeck::probes::PollerThread poller;
    opsdeck::probes::ServiceStatus last;
    QObject context;
    QObject::connect(poller.poller(), &opsdeck::probes::ServicePoller::statusChecked, &context,
                     [&last](const opsdeck::probes::ServiceStatus &status) { last = status; });
    poller.setServices(routed.services);
    poller.start();
    ASSERT_TRUE(opsdeck::test::waitUntil(
        [&] { return last.state == opsdeck::probes::ServiceState::Healthy; }, 30s))
        << last.detail.toStdString();
    // The card shows the written URL and the host it is tunnelled through.
    EXPECT_EQ(last.url, service.url);
    EXPECT_EQ(last.via, QStringLiteral("gpu-1"));
    EXPECT_EQ(last.tunnelUrl, through.url);
    const QString status = hosts.tunnelStatus(through);
    EXPECT_TRUE(status.startsWith(QStringLiteral("via gpu-1: 127.0.0.1:%1 → 127.0.0.1:%2")
                                      .arg(through.url.port())
                                      .arg(sim.port())))
        << status.toStdString();
    EXPECT_TRUE(status.endsWith(QStringLiteral(", ready"))) << status.toStdString();
}
