// opsdeck-cli commands that read an inventory reach `via:` services through
// an SSH tunnel: `status` against a real sshd and opsdeck-sim on loopback
// reports the decode healthy at its written URL, and an unknown host key
// refuses the tunnel (the decode is not reached) and is audited. `diagnose`
// probes (libcurl's ProbeEngine) a decode that only the host can reach go
// through the same tunnel.
#include "auditlog.h"
#include "clitest.h"
#include "simprocess.h"
#include "sshfixture.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace std::chrono_literals;
using opsdeck::test::CliRun;
using opsdeck::test::runCli;
using opsdeck::test::SimProcess;
using opsdeck::test::SshdProcess;

namespace {

struct StatusRun
{
    int exitCode = -1;
    QJsonObject decode;
    QString standardError;
};

StatusRun runStatus(const QTemporaryDir &dir, const QStringList &options)
{
    const CliRun cli =
        runCli(QStringList{QStringLiteral("status"), QStringLiteral("--inventory"),
                           dir.filePath(QStringLiteral("inventory.yaml")), QStringLiteral("--json"),
                           QStringLiteral("--timeout"), QStringLiteral("8000"),
                           QStringLiteral("--data-dir"), dir.path()}
               << options);
    StatusRun run;
    run.exitCode = cli.exitCode;
    run.standardError = QString::fromUtf8(cli.standardError);
    for (const QJsonValue &service : cli.json().object()[QStringLiteral("services")].toArray())
        if (service[QStringLiteral("name")].toString() == QStringLiteral("decode"))
            run.decode = service.toObject();
    return run;
}

// The inventory's host is the test config's alias, so its IdentityFile applies.
bool writeInventory(const QTemporaryDir &dir, const SshdProcess &sshd, int simPort,
                    const QString &more = {})
{
    return opsdeck::test::writeFile(dir.filePath(QStringLiteral("inventory.yaml")),
                                    QStringLiteral("hosts:\n"
                                                   "  - name: %1\n"
                                                   "    kind: ssh\n"
                                                   "    address: 127.0.0.1\n"
                                                   "    port: %2\n"
                                                   "services:\n"
                                                   "  - name: decode\n"
                                                   "    role: decode\n"
                                                   "    host: %1\n"
                                                   "    via: %1\n"
                                                   "    url: http://127.0.0.1:%3\n")
                                            .arg(SshdProcess::alias())
                                            .arg(sshd.port())
                                            .arg(simPort)
                                            .toUtf8() +
                                        more.toUtf8());
}

struct DiagnoseRun
{
    int exitCode = -1;
    QJsonObject json;
    QString standardError;
};

// One round of health probes of cluster `pd`, fresh and reused, with no idle gap.
DiagnoseRun runDiagnose(const QTemporaryDir &dir, const SshdProcess &sshd)
{
    const CliRun cli = runCli({QStringLiteral("diagnose"),
                               QStringLiteral("--inventory"),
                               dir.filePath(QStringLiteral("inventory.yaml")),
                               QStringLiteral("--cluster"),
                               QStringLiteral("pd"),
                               QStringLiteral("--probe"),
                               QStringLiteral("health"),
                               QStringLiteral("--rounds"),
                               QStringLiteral("1"),
                               QStringLiteral("--idle-gap"),
                               QStringLiteral("0"),
                               QStringLiteral("--timeout-ms"),
                               QStringLiteral("8000"),
                               QStringLiteral("--json"),
                               QStringLiteral("--data-dir"),
                               dir.path(),
                               QStringLiteral("--ssh-config"),
                               sshd.sshConfig(),
                               QStringLiteral("--known-hosts"),
                               sshd.knownHosts()});
    DiagnoseRun run;
    run.exitCode = cli.exitCode;
    run.standardError = QString::fromUtf8(cli.standardError);
    run.json = cli.json().object();
    return run;
}

} // namespace

TEST(CliTunnel, StatusReachesAViaServiceThroughTheHost)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    SimProcess sim;
    ASSERT_TRUE(sim.start(opsdeck::test::simArgs(QStringLiteral("decode"))))
        << sim.errorText().toStdString();
    QTemporaryDir dir;
    ASSERT_TRUE(writeInventory(dir, sshd, sim.port()));
    const StatusRun run = runStatus(dir, {QStringLiteral("--ssh-config"), sshd.sshConfig(),
                                          QStringLiteral("--known-hosts"), sshd.knownHosts()});
    EXPECT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    EXPECT_EQ(run.decode[QStringLiteral("state")].toString(), QStringLiteral("healthy"))
        << run.standardError.toStdString();
    EXPECT_EQ(run.decode[QStringLiteral("url")].toString(),
              QStringLiteral("http://127.0.0.1:%1").arg(sim.port()));
}

TEST(CliTunnel, UnknownHostKeyRefusesTheTunnelAndIsAudited)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    SimProcess sim;
    ASSERT_TRUE(sim.start(opsdeck::test::simArgs(QStringLiteral("decode"))))
        << sim.errorText().toStdString();
    QTemporaryDir dir;
    ASSERT_TRUE(writeInventory(dir, sshd, sim.port()));
    const QString emptyKnownHosts = dir.filePath(QStringLiteral("known_hosts"));
    ASSERT_TRUE(opsdeck::test::writeFile(emptyKnownHosts, {}));
    // The config's UserKnownHostsFile is the sshd's; --known-hosts must win.
    const StatusRun run = runStatus(dir, {QStringLiteral("--ssh-config"), sshd.sshConfig(),
                                          QStringLiteral("--known-hosts"), emptyKnownHosts});
    // The sim is up and reachable directly: not healthy means the status went
    // through the (refused) tunnel, never around it.
    EXPECT_NE(run.exitCode, 0);
    // Not "down": the decode was never reached; the host in between said no.
    EXPECT_EQ(run.decode[QStringLiteral("state")].toString(), QStringLiteral("unknown"));
    EXPECT_TRUE(run.decode[QStringLiteral("detail")].toString().contains(
        QStringLiteral("not reached: tunnel via %1 to ").arg(SshdProcess::alias())))
        << run.decode[QStringLiteral("detail")].toString().toStdString();
    const auto entries =
        opsdeck::history::AuditLog(opsdeck::history::AuditLog::pathIn(dir.path())).read();
    ASSERT_FALSE(entries.isEmpty()) << run.standardError.toStdString();
    EXPECT_EQ(entries[0].action, QStringLiteral("refused-unknown"));
    EXPECT_EQ(entries[0].host, SshdProcess::alias());
    EXPECT_TRUE(entries[0].detail.contains(sshd.hostKeyFingerprint()));
}

// The sims run beside sshd in a network namespace of its own: nothing but
// the tunnels reach them, so any answer at all went through the host.
TEST(CliTunnel, DiagnoseProbesAViaServiceThatOnlyTheHostReaches)
{
    SshdProcess sshd;
    const int decodePort = opsdeck::test::freeTcpPort();
    const int prefillPort = opsdeck::test::freeTcpPort();
    // Both sims stay in sshd's process tree (killed with it): one in the
    // background, the subshell becoming the other.
    sshd.setPrivateNetwork(QStringLiteral("'%1' --role prefill --port %3 --ready-delay 0 & "
                                          "exec '%1' --role decode --port %2 --ready-delay 0")
                               .arg(opsdeck::test::binPath(QStringLiteral("opsdeck-sim")))
                               .arg(decodePort)
                               .arg(prefillPort));
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    QTemporaryDir dir;
    ASSERT_TRUE(writeInventory(dir, sshd, decodePort,
                               QStringLiteral("  - name: prefill\n"
                                              "    role: prefill\n"
                                              "    host: %1\n"
                                              "    via: %1\n"
                                              "    url: http://127.0.0.1:%2\n"
                                              "clusters:\n"
                                              "  - name: pd\n"
                                              "    prefill: [prefill]\n"
                                              "    decode: [decode]\n")
                                   .arg(SshdProcess::alias())
                                   .arg(prefillPort)));
    // The sims may still be starting inside: status says when (bounded).
    StatusRun status;
    ASSERT_TRUE(opsdeck::test::waitUntil(
        [&] {
            status = runStatus(dir, {QStringLiteral("--ssh-config"), sshd.sshConfig(),
                                     QStringLiteral("--known-hosts"), sshd.knownHosts()});
            return status.exitCode == 0;
        },
        30s))
        << status.standardError.toStdString();

    const DiagnoseRun run = runDiagnose(dir, sshd);
    EXPECT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    const QJsonArray paths = run.json[QStringLiteral("paths")].toArray();
    ASSERT_EQ(paths.size(), 2) << run.standardError.toStdString();
    for (const QJsonValue &value : paths) {
        const QJsonObject path = value.toObject();
        // The whole path on failure: its notes say what went where.
        const std::string name = QJsonDocument(path).toJson().toStdString();
        EXPECT_EQ(path[QStringLiteral("problem")].toString(), QString()) << name;
        const QJsonArray rounds = path[QStringLiteral("rounds")].toArray();
        ASSERT_EQ(rounds.size(), 1) << name;
        const QJsonObject round = rounds.at(0).toObject();
        EXPECT_EQ(round[QStringLiteral("fresh_status")].toInt(), 200) << name;
        EXPECT_EQ(round[QStringLiteral("reused_status")].toInt(), 200) << name;
        EXPECT_GT(round[QStringLiteral("fresh_ms")].toDouble(), 0) << name;
        // The kept-alive connection through the tunnel served the reused probe.
        EXPECT_TRUE(round[QStringLiteral("reused_connection")].toBool()) << name;
    }
}
