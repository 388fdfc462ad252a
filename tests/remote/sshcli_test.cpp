// opsdeck-cli ssh: output copied, exit code mirrored (signal 128+N),
// 3 on a timeout, 4 on a refused host key, 1 on failed authentication,
// HOST from an inventory.
#include "auditlog.h"
#include "sshfixture.h"

#include <QCoreApplication>
#include <QDir>
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>
#include <gtest/gtest.h>
#include <sys/stat.h>

using opsdeck::test::SshdProcess;
using namespace Qt::StringLiterals;

namespace {

struct CliRun
{
    int exitCode = -1;
    QByteArray standardOutput;
    QString standardError;
};

// `under`: a program that runs the CLI (its arguments first), e.g. strace.
CliRun runSsh(const SshdProcess &sshd, const QStringList &options, const QStringList &command,
              const QString &host = SshdProcess::alias(), const QStringList &under = {})
{
    QProcess cli;
    QStringList arguments{QStringLiteral("ssh"), host};
    arguments << QStringLiteral("--known-hosts") << sshd.knownHosts()
              << QStringLiteral("--identity") << sshd.clientKey() << options << QStringLiteral("--")
              << command;
    const QString program = opsdeck::test::binPath(QStringLiteral("opsdeck-cli"));
    if (under.isEmpty())
        cli.start(program, arguments);
    else
        cli.start(under.first(), under.mid(1) << program << arguments);
    CliRun run;
    if (!cli.waitForFinished(60000)) {
        cli.kill();
        cli.waitForFinished(5000);
        return run;
    }
    run.exitCode = cli.exitStatus() == QProcess::NormalExit ? cli.exitCode() : -1;
    run.standardOutput = cli.readAllStandardOutput();
    run.standardError = QString::fromUtf8(cli.readAllStandardError());
    return run;
}

QStringList withConfig(const SshdProcess &sshd)
{
    return {QStringLiteral("--ssh-config"), sshd.sshConfig()};
}

QStringList sh(const QString &script)
{
    return {QStringLiteral("sh"), QStringLiteral("-c"), script};
}

} // namespace

TEST(SshCli, CopiesOutputAndMirrorsTheExitCode)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    const CliRun ok =
        runSsh(sshd, withConfig(sshd), {QStringLiteral("printf"), QStringLiteral("\\377ok")});
    EXPECT_EQ(ok.exitCode, 0) << ok.standardError.toStdString();
    EXPECT_EQ(ok.standardOutput, QByteArray("\xffok"));

    const CliRun seven = runSsh(sshd, withConfig(sshd), sh(QStringLiteral("echo err >&2; exit 7")));
    EXPECT_EQ(seven.exitCode, 7);
    EXPECT_TRUE(seven.standardError.startsWith(QStringLiteral("err\n")))
        << seven.standardError.toStdString();

    const CliRun killed = runSsh(sshd, withConfig(sshd), sh(QStringLiteral("kill -TERM $$")));
    EXPECT_EQ(killed.exitCode, 128 + 15);
    EXPECT_TRUE(killed.standardError.contains(QStringLiteral("killed by SIGTERM")));
}

TEST(SshCli, TimeoutExitsThree)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    const CliRun run =
        runSsh(sshd, withConfig(sshd) << QStringLiteral("--timeout") << QStringLiteral("0.5"),
               {QStringLiteral("sleep"), QStringLiteral("600")});
    EXPECT_EQ(run.exitCode, 3) << run.standardError.toStdString();
    EXPECT_TRUE(run.standardError.contains(QStringLiteral("timed out")))
        << run.standardError.toStdString();
}

TEST(SshCli, RefusedHostKeyExitsFourAndTheFingerprintLetsItIn)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    ASSERT_TRUE(opsdeck::test::writeFile(sshd.knownHosts(), QByteArray()));
    QTemporaryDir data;
    const QStringList options = withConfig(sshd) << QStringLiteral("--data-dir") << data.path();
    const CliRun refused = runSsh(sshd, options, {QStringLiteral("true")});
    EXPECT_EQ(refused.exitCode, 4) << refused.standardError.toStdString();
    EXPECT_TRUE(refused.standardError.contains(sshd.hostKeyFingerprint()));

    const CliRun accepted = runSsh(sshd,
                                   QStringList(options) << QStringLiteral("--accept-new-host-key")
                                                        << sshd.hostKeyFingerprint(),
                                   {QStringLiteral("true")});
    EXPECT_EQ(accepted.exitCode, 0) << accepted.standardError.toStdString();

    // Both decisions are in the audit log, with the key's fingerprint.
    const auto entries =
        opsdeck::history::AuditLog(opsdeck::history::AuditLog::pathIn(data.path())).read();
    ASSERT_EQ(entries.size(), 2);
    EXPECT_EQ(entries[0].action, QStringLiteral("refused-unknown"));
    EXPECT_EQ(entries[1].action, QStringLiteral("accepted-new"));
    EXPECT_EQ(entries[1].host, SshdProcess::alias());
    EXPECT_TRUE(entries[1].detail.contains(sshd.hostKeyFingerprint()));
}

// An acceptance that cannot be audited does not happen: with audit.jsonl a
// folder, the key is not saved and the command does not run.
TEST(SshCli, AHostKeyWhoseAuditEntryCannotBeWrittenIsNotAcceptedAndNothingRuns)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    ASSERT_TRUE(opsdeck::test::writeFile(sshd.knownHosts(), QByteArray()));
    QTemporaryDir data;
    ASSERT_TRUE(QDir(data.path()).mkpath(QStringLiteral("audit.jsonl")));
    const QString marker = data.filePath(QStringLiteral("ran"));
    const CliRun run = runSsh(sshd,
                              withConfig(sshd) << QStringLiteral("--data-dir") << data.path()
                                               << QStringLiteral("--accept-new-host-key")
                                               << sshd.hostKeyFingerprint(),
                              {QStringLiteral("touch"), marker});
    EXPECT_EQ(run.exitCode, 4) << run.standardError.toStdString();
    EXPECT_TRUE(run.standardError.contains(QStringLiteral("audit")))
        << run.standardError.toStdString();
    EXPECT_TRUE(run.standardError.contains(QStringLiteral("Nothing was saved")))
        << run.standardError.toStdString();
    EXPECT_FALSE(QFile::exists(marker));
    QFile knownHosts(sshd.knownHosts());
    ASSERT_TRUE(knownHosts.open(QIODevice::ReadOnly));
    EXPECT_TRUE(knownHosts.readAll().isEmpty()) << "the key must not be saved";
}

// The CLI killed (SIGKILL, by strace at the head's renames) before an
// acceptance's audit line and then between its line and its head: the key is
// not saved and the command does not run either time, `audit --verify` stays
// intact (counting the line the head named, and saying its writer died), and
// the next acceptance appends on.
TEST(SshCli, AnAcceptanceKilledMidAuditLeavesAnIntactLogAndNothingDone)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    ASSERT_TRUE(opsdeck::test::writeFile(sshd.knownHosts(), QByteArray()));
    QTemporaryDir data;
    const QString marker = data.filePath(QStringLiteral("ran"));
    const QStringList options = withConfig(sshd) << QStringLiteral("--data-dir") << data.path()
                                                 << QStringLiteral("--accept-new-host-key")
                                                 << sshd.hostKeyFingerprint();
    const auto verify = [&] {
        QProcess cli;
        cli.start(opsdeck::test::binPath(QStringLiteral("opsdeck-cli")),
                  {QStringLiteral("audit"), QStringLiteral("--verify"),
                   QStringLiteral("--data-dir"), data.path()});
        const bool ended = cli.waitForFinished(30000);
        return std::make_pair(ended ? cli.exitCode() : -1,
                              QString::fromUtf8(cli.readAllStandardOutput()));
    };
    const auto knownHosts = [&] {
        QFile file(sshd.knownHosts());
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("unreadable");
    };
    // The append's first rename puts the head naming the entry in place,
    // its second the head counting it.
    for (const int killedAt : {1, 2}) {
        SCOPED_TRACE(killedAt == 1 ? "killed before the line" : "killed after the line");
        const QStringList strace{QStringLiteral("strace"),
                                 QStringLiteral("-f"),
                                 QStringLiteral("-qq"),
                                 QStringLiteral("-o"),
                                 QStringLiteral("/dev/null"),
                                 QStringLiteral("-e"),
                                 QStringLiteral("trace=rename,renameat,renameat2"),
                                 QStringLiteral("-e"),
                                 QStringLiteral("inject=rename,renameat,renameat2:signal=SIGKILL:"
                                                "when=%1")
                                     .arg(killedAt)};
        const CliRun killed =
            runSsh(sshd, options, {QStringLiteral("touch"), marker}, SshdProcess::alias(), strace);
        EXPECT_NE(killed.exitCode, 0) << killed.standardError.toStdString();
        EXPECT_FALSE(QFile::exists(marker)) << "nothing ran";
        EXPECT_TRUE(knownHosts().isEmpty()) << "the key was not saved";
        const auto [exitCode, said] = verify();
        EXPECT_EQ(exitCode, 0) << said.toStdString();
        EXPECT_TRUE(said.contains(u"intact, %1 entries"_s.arg(killedAt - 1))) << said.toStdString();
        EXPECT_EQ(said.contains(u"died before confirming it"_s), killedAt == 2)
            << said.toStdString();
    }
    const CliRun accepted = runSsh(sshd, options, {QStringLiteral("touch"), marker});
    EXPECT_EQ(accepted.exitCode, 0) << accepted.standardError.toStdString();
    EXPECT_TRUE(QFile::exists(marker));
    const auto [exitCode, said] = verify();
    EXPECT_EQ(exitCode, 0) << said.toStdString();
    EXPECT_TRUE(said.contains(u"intact, 2 entries\n"_s)) << said.toStdString();
}

// Output is copied while the command runs: the command waits for a file the
// test creates only after it has read the first line from the CLI's stdout.
TEST(SshCli, OutputIsCopiedAsItComes)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    const QString gate = sshd.path(QStringLiteral("gate"));
    QProcess cli;
    cli.start(opsdeck::test::binPath(QStringLiteral("opsdeck-cli")),
              QStringList{QStringLiteral("ssh"), SshdProcess::alias(),
                          QStringLiteral("--known-hosts"), sshd.knownHosts(),
                          QStringLiteral("--identity"), sshd.clientKey()}
                  << withConfig(sshd) << QStringLiteral("--timeout") << QStringLiteral("20")
                  << QStringLiteral("--")
                  << sh(QStringLiteral("echo first; i=0; while [ ! -e '%1' ] && [ $i -lt 300 ]; "
                                       "do sleep 0.05; i=$((i+1)); done; echo second")
                            .arg(gate)));
    QByteArray seen;
    ASSERT_TRUE(opsdeck::test::waitUntil(
        [&] {
            seen += cli.readAllStandardOutput();
            return seen.contains("first\n");
        },
        std::chrono::seconds(15)))
        << "the first line must arrive before the command ends";
    EXPECT_FALSE(seen.contains("second"));
    ASSERT_TRUE(opsdeck::test::writeFile(gate, "go"));
    ASSERT_TRUE(cli.waitForFinished(20000));
    seen += cli.readAllStandardOutput();
    EXPECT_EQ(seen, QByteArray("first\nsecond\n"));
    EXPECT_EQ(cli.exitCode(), 0);
}

TEST(SshCli, FailedAuthenticationExitsOneNamingTheMethods)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    const QString wrongKey = sshd.path(QStringLiteral("wrong_key"));
    ASSERT_TRUE(SshdProcess::generateKey(wrongKey));
    QProcess cli;
    cli.start(opsdeck::test::binPath(QStringLiteral("opsdeck-cli")),
              {QStringLiteral("ssh"), SshdProcess::alias(), QStringLiteral("--ssh-config"),
               sshd.sshConfig(), QStringLiteral("--known-hosts"), sshd.knownHosts(),
               QStringLiteral("--identity"), wrongKey, QStringLiteral("--"),
               QStringLiteral("true")});
    ASSERT_TRUE(cli.waitForFinished(60000));
    const QString error = QString::fromUtf8(cli.readAllStandardError());
    EXPECT_EQ(cli.exitCode(), 1) << error.toStdString();
    EXPECT_TRUE(error.contains(QStringLiteral("the server allows publickey")))
        << error.toStdString();
}

TEST(SshCli, HostFromTheInventory)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    QTemporaryDir dir;
    const QString inventory = opsdeck::test::writeInventory(
        dir, QStringLiteral("hosts:\n"
                            "  - {name: gpu-a, kind: ssh, address: 127.0.0.1, port: %1, user: %2}\n"
                            "  - {name: here, kind: local}\n"
                            "services: []\n")
                 .arg(sshd.port())
                 .arg(SshdProcess::userName()));
    const CliRun ok =
        runSsh(sshd, {QStringLiteral("--inventory"), inventory},
               {QStringLiteral("echo"), QStringLiteral("from gpu-a")}, QStringLiteral("gpu-a"));
    EXPECT_EQ(ok.exitCode, 0) << ok.standardError.toStdString();
    EXPECT_EQ(ok.standardOutput, "from gpu-a\n");

    const CliRun missing = runSsh(sshd, {QStringLiteral("--inventory"), inventory},
                                  {QStringLiteral("true")}, QStringLiteral("gpu-z"));
    EXPECT_EQ(missing.exitCode, 2);
    EXPECT_TRUE(missing.standardError.contains(QStringLiteral("no host 'gpu-z'")));

    const CliRun local = runSsh(sshd, {QStringLiteral("--inventory"), inventory},
                                {QStringLiteral("true")}, QStringLiteral("here"));
    EXPECT_EQ(local.exitCode, 2);
    EXPECT_TRUE(local.standardError.contains(QStringLiteral("not ssh")));
}

// --timeout bounds the connect too: a port that accepts TCP but never sends
// an SSH banner fails well before the 10 s default connect limit.
TEST(SshCli, TimeoutAlsoBoundsTheConnect)
{
    QTcpServer silent; // accepts (the kernel's backlog) and never writes
    ASSERT_TRUE(silent.listen(QHostAddress::LocalHost));
    QTemporaryDir dir;
    QProcess cli;
    cli.start(opsdeck::test::binPath(QStringLiteral("opsdeck-cli")),
              {QStringLiteral("ssh"), QStringLiteral("127.0.0.1:%1").arg(silent.serverPort()),
               QStringLiteral("--known-hosts"), dir.filePath(QStringLiteral("known_hosts")),
               QStringLiteral("--timeout"), QStringLiteral("1"), QStringLiteral("--"),
               QStringLiteral("true")});
    const bool finished = cli.waitForFinished(7000);
    if (!finished) {
        cli.kill();
        cli.waitForFinished(5000);
    }
    ASSERT_TRUE(finished) << "the connect outlived --timeout 1 by far";
    const QString error = QString::fromUtf8(cli.readAllStandardError());
    EXPECT_EQ(cli.exitCode(), 1) << error.toStdString();
    EXPECT_TRUE(error.contains(QStringLiteral("Timeout connecting to 127.0.0.1")))
        << error.toStdString();
}

// A bad --timeout is refused before anything connects: `nan` (which QString
// parses) and values below 1 ms (a 0 ms deadline) included.
TEST(SshCli, BadTimeoutExitsTwoNamingTheValue)
{
    QTemporaryDir dir;
    for (const QString &value :
         {QStringLiteral("nan"), QStringLiteral("-nan"), QStringLiteral("0.0004"),
          QStringLiteral("0"), QStringLiteral("-1"), QStringLiteral("inf"), QStringLiteral("x")}) {
        QProcess cli;
        cli.start(opsdeck::test::binPath(QStringLiteral("opsdeck-cli")),
                  {QStringLiteral("ssh"), QStringLiteral("127.0.0.1:1"),
                   QStringLiteral("--data-dir"), dir.path(), QStringLiteral("--timeout"), value,
                   QStringLiteral("--"), QStringLiteral("true")});
        ASSERT_TRUE(cli.waitForFinished(30000));
        const QString error = QString::fromUtf8(cli.readAllStandardError());
        EXPECT_EQ(cli.exitCode(), 2) << value.toStdString() << ": " << error.toStdString();
        EXPECT_TRUE(error.contains(QStringLiteral("bad --timeout '%1'").arg(value)))
            << error.toStdString();
    }
}

// A FIFO (or a device) given as --ssh-config or --known-hosts: libssh would
// block reading it in the session thread for ever; refused at once, naming it.
TEST(SshCli, AFifoAsConfigOrKnownHostsIsRefusedNotWaitedOn)
{
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("fifo"));
    ASSERT_EQ(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    for (const QString &option :
         {QStringLiteral("--ssh-config"), QStringLiteral("--known-hosts")}) {
        QProcess cli;
        cli.start(opsdeck::test::binPath(QStringLiteral("opsdeck-cli")),
                  {QStringLiteral("ssh"), QStringLiteral("127.0.0.1:1"),
                   QStringLiteral("--data-dir"), dir.path(), option, fifo,
                   QStringLiteral("--timeout"), QStringLiteral("2"), QStringLiteral("--"),
                   QStringLiteral("true")});
        const bool finished = cli.waitForFinished(20000);
        if (!finished) {
            cli.kill();
            cli.waitForFinished(5000);
        }
        ASSERT_TRUE(finished) << option.toStdString() << ": hung on the FIFO";
        const QString error = QString::fromUtf8(cli.readAllStandardError());
        EXPECT_EQ(cli.exitCode(), 2) << error.toStdString();
        EXPECT_TRUE(error.contains(fifo + QStringLiteral(": not a regular file")))
            << error.toStdString();
    }
}

// HOST as `[address]:port` (how IPv6 addresses carry a port): the port is
// used, not dropped for 22; an empty host before the port is bad input.
TEST(SshCli, BracketedAddressKeepsItsPortAndAnEmptyHostIsRefused)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    const CliRun ok = runSsh(sshd, {}, {QStringLiteral("echo"), QStringLiteral("hi")},
                             QStringLiteral("[127.0.0.1]:%1").arg(sshd.port()));
    EXPECT_EQ(ok.exitCode, 0) << ok.standardError.toStdString();
    EXPECT_EQ(ok.standardOutput, "hi\n");
    QTcpServer v6;
    ASSERT_TRUE(v6.listen(QHostAddress::LocalHostIPv6));
    const CliRun bracketed =
        runSsh(sshd, {QStringLiteral("--timeout"), QStringLiteral("1")}, {QStringLiteral("true")},
               QStringLiteral("[::1]:%1").arg(v6.serverPort()));
    // Connected to that port (which never speaks SSH), not refused on port 22.
    EXPECT_TRUE(bracketed.standardError.contains(QStringLiteral("Timeout connecting")))
        << bracketed.standardError.toStdString();
    for (const QString &host :
         {QStringLiteral(":22"), QStringLiteral("root@:22"), QStringLiteral("[]:22")}) {
        const CliRun empty = runSsh(sshd, {}, {QStringLiteral("true")}, host);
        EXPECT_EQ(empty.exitCode, 2) << host.toStdString();
        EXPECT_TRUE(empty.standardError.contains(QStringLiteral("no host name before the port")))
            << empty.standardError.toStdString();
    }
    const CliRun spaced = runSsh(sshd, {}, {QStringLiteral("true")}, QStringLiteral("gpu 1"));
    EXPECT_EQ(spaced.exitCode, 2);
    EXPECT_TRUE(spaced.standardError.contains(QStringLiteral("bad host name 'gpu 1'")))
        << spaced.standardError.toStdString();
}

// UNKNOWN results exit 3 with a message: sshd closes the idle channel after
// 1 s without an exit status (ChannelTimeout, as SshTransport's case B15), and
// a command that kills the sshd process serving its own session.
TEST(SshCli, UnknownResultExitsThreeWithAMessage)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start(QStringLiteral("ChannelTimeout session:command=1s")))
        << sshd.errorText().toStdString();
    const CliRun closed = runSsh(sshd, withConfig(sshd), sh(QStringLiteral("sleep 4; exit 7")));
    EXPECT_EQ(closed.exitCode, 3) << closed.standardError.toStdString();
    EXPECT_TRUE(closed.standardError.contains(QStringLiteral("no exit status")))
        << closed.standardError.toStdString();
    EXPECT_TRUE(closed.standardError.contains(SshdProcess::alias() +
                                              QStringLiteral(": result unknown (no exit status)")))
        << closed.standardError.toStdString();

    // Up the parents to the first sshd: the session's process, not the listener.
    const CliRun lost = runSsh(
        sshd, withConfig(sshd),
        sh(QStringLiteral("p=$$; while [ \"$(cat /proc/$p/comm)\" != sshd ]; do "
                          "p=$(awk '{print $4}' /proc/$p/stat); done; kill -KILL $p; sleep 3")));
    EXPECT_EQ(lost.exitCode, 3) << lost.standardError.toStdString();
    EXPECT_TRUE(lost.standardError.contains(QStringLiteral("lost")))
        << lost.standardError.toStdString();
    // Only that session died, not the listening sshd.
    EXPECT_TRUE(opsdeck::test::processAlive(sshd.pid()));
}

// A changed host key exits 4 naming the known_hosts line to remove; the
// refusal is written to the audit log.
TEST(SshCli, ChangedHostKeyExitsFourNamingTheLineAndIsAudited)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    // known_hosts line 2: this host:port with another key.
    ASSERT_TRUE(opsdeck::test::writeChangedHostKey(sshd));
    const QByteArray knownHosts = opsdeck::test::readFile(sshd.knownHosts());
    QTemporaryDir data;
    const QString marker = sshd.path(QStringLiteral("ran"));
    // Even the server's exact fingerprint does not let a changed key in.
    const CliRun refused = runSsh(sshd,
                                  withConfig(sshd) << QStringLiteral("--data-dir") << data.path()
                                                   << QStringLiteral("--accept-new-host-key")
                                                   << sshd.hostKeyFingerprint(),
                                  {QStringLiteral("touch"), marker});
    EXPECT_EQ(refused.exitCode, 4) << refused.standardError.toStdString();
    EXPECT_FALSE(QFile::exists(marker)) << "the command ran despite the changed key";
    const std::string error = refused.standardError.toStdString();
    EXPECT_TRUE(refused.standardError.contains(QStringLiteral("HOST KEY CHANGED"))) << error;
    EXPECT_TRUE(refused.standardError.contains(sshd.knownHosts() + QStringLiteral(":2"))) << error;
    EXPECT_FALSE(refused.standardError.contains(sshd.knownHosts() + QStringLiteral(":1"))) << error;
    EXPECT_TRUE(refused.standardError.contains(sshd.hostKeyFingerprint())) << error;
    EXPECT_EQ(opsdeck::test::readFile(sshd.knownHosts()), knownHosts) << "known_hosts untouched";

    const opsdeck::history::AuditLog audit(opsdeck::history::AuditLog::pathIn(data.path()));
    const auto entries = audit.read();
    ASSERT_EQ(entries.size(), 1);
    EXPECT_EQ(entries[0].kind, QStringLiteral("host-key"));
    EXPECT_EQ(entries[0].action, QStringLiteral("refused-changed"));
    EXPECT_EQ(entries[0].host, SshdProcess::alias());
    EXPECT_TRUE(entries[0].detail.contains(sshd.hostEntry())) << entries[0].detail.toStdString();
    EXPECT_TRUE(entries[0].detail.contains(sshd.hostKeyFingerprint()))
        << entries[0].detail.toStdString();
    // Verified as a user does, with the key the CLI kept in the secret store.
    QString verified;
    EXPECT_EQ(opsdeck::test::auditVerify(data.path(), &verified), 0) << verified.toStdString();
}
