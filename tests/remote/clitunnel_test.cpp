// opsdeck-cli commands that read an inventory reach `via:` services through
// an SSH tunnel: `status` against a real sshd and opsdeck-sim on loopback
// reports the decode healthy at its written URL, and an unknown host key
// refuses the tunnel (the decode is not reached) and is audited.
#include "auditlog.h"
#include "simprocess.h"
#include "sshfixture.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <gtest/gtest.h>

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
    QProcess cli;
    cli.start(opsdeck::test::binPath(QStringLiteral("opsdeck-cli")),
              QStringList{QStringLiteral("status"), QStringLiteral("--inventory"),
                          dir.filePath(QStringLiteral("inventory.yaml")), QStringLiteral("--json"),
                          QStringLiteral("--timeout"), QStringLiteral("8000"),
                          QStringLiteral("--data-dir"), dir.path()}
                  << options);
    StatusRun run;
    if (!cli.waitForFinished(60000)) {
        cli.kill();
        cli.waitForFinished(5000);
        return run;
    }
    run.exitCode = cli.exitStatus() == QProcess::NormalExit ? cli.exitCode() : -1;
    run.standardError = QString::fromUtf8(cli.readAllStandardError());
    const QJsonDocument doc = QJsonDocument::fromJson(cli.readAllStandardOutput());
    for (const QJsonValue &service : doc.object()[QStringLiteral("services")].toArray())
        if (service[QStringLiteral("name")].toString() == QStringLiteral("decode"))
            run.decode = service.toObject();
    return run;
}

// The inventory's host is the test config's alias, so its IdentityFile applies.
bool writeInventory(const QTemporaryDir &dir, const SshdProcess &sshd, int simPort)
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
                                        .toUtf8());
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
