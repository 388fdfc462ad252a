// ProcessControl: start through the inventory's commands, and a verified
// stop that escalates to SIGKILL when SIGTERM is ignored.
#include "localtransport.h"
#include "managedprocess.h"
#include "processcontrol.h"
#include "shellquote.h"
#include "simprocess.h"
#include "testsupport.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <csignal>
#include <functional>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace opsdeck;
using opsdeck::test::processAlive;
using opsdeck::test::waitUntil;

namespace {

processes::ManagedProcess detachedSleeper(const QString &dir, const QString &name, bool ignoreTerm)
{
    processes::ManagedProcess process;
    process.name = name;
    process.host = QStringLiteral("local");
    process.pidFile = dir + QLatin1Char('/') + name + QStringLiteral(".pid");
    const QString body = ignoreTerm ? QStringLiteral("trap '' TERM; while :; do sleep 0.2; done")
                                    : QStringLiteral("exec sleep 60");
    process.start = QStringLiteral("setsid bash -c %1 </dev/null >/dev/null 2>&1 & echo $! >%2")
                        .arg(shell::singleQuoted(body), shell::singleQuoted(process.pidFile));
    process.deriveMissingCommands();
    return process;
}

// Stops `process` and returns the failure the stop reported (the test fails
// when the stop succeeded: each caller's pid file names another process).
QString stopAndSay(processes::ProcessControl &control, const processes::ManagedProcess &process)
{
    QSignalSpy stopped(&control, &processes::ProcessControl::stopFinished);
    control.stopAll({process});
    if (!stopped.wait(10000)) {
        ADD_FAILURE() << "no stopFinished";
        return {};
    }
    EXPECT_FALSE(stopped.first().at(0).toBool()) << "the stop must fail naming the pid";
    return stopped.first().at(1).toString();
}

// Whether something accepts connections on 127.0.0.1:port.
bool listening(quint16 port)
{
    QTcpSocket probe;
    probe.connectToHost(QHostAddress::LocalHost, port);
    return probe.waitForConnected(200);
}

// Spawns `arguments` with a copy of the listening socket `socket` as its
// fd 3 (QProcess would close it in the child) and waits until it runs its
// own command line; 0 when it could not.
pid_t spawnHolding(const QTcpServer &socket, QStringList arguments)
{
    posix_spawn_file_actions_t actions;
    if (::posix_spawn_file_actions_init(&actions) != 0)
        return 0;
    ::posix_spawn_file_actions_adddup2(&actions, int(socket.socketDescriptor()), 3);
    std::vector<QByteArray> bytes;
    for (const QString &argument : arguments)
        bytes.push_back(argument.toLocal8Bit());
    std::vector<char *> argv;
    for (QByteArray &argument : bytes)
        argv.push_back(argument.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int failed = ::posix_spawnp(&pid, argv.front(), &actions, nullptr, argv.data(), environ);
    ::posix_spawn_file_actions_destroy(&actions);
    if (failed != 0)
        return 0;
    const QByteArray last = bytes.back();
    if (!waitUntil(
            [&] {
                return test::readFile(QStringLiteral("/proc/%1/cmdline").arg(pid)).contains(last);
            },
            std::chrono::seconds(5)))
        ADD_FAILURE() << "pid " << pid << " did not exec " << argv.front();
    return pid;
}

// Waits for `pid`, a child of this test, to end (SIGKILL past `deadline`);
// whether it ended by itself.
bool reaped(pid_t pid, std::chrono::milliseconds deadline)
{
    if (waitUntil([&] { return ::waitpid(pid, nullptr, WNOHANG) == pid; }, deadline))
        return true;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return false;
}

// Stops `process` with a short grace and expects it stopped only by the
// SIGKILL that follows it.
void expectStoppedBySigkill(const processes::ManagedProcess &process)
{
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    processes::ProcessControl::Settings settings;
    settings.stopGrace = std::chrono::seconds(1);
    settings.killGrace = std::chrono::seconds(3);
    control.setSettings(settings);
    QSignalSpy stopped(&control, &processes::ProcessControl::stopFinished);
    QSignalSpy progressed(&control, &processes::ProcessControl::progressed);
    control.stopAll({process});
    ASSERT_TRUE(stopped.wait(15000));
    EXPECT_TRUE(stopped.first().at(0).toBool()) << stopped.first().at(1).toString().toStdString();
    QStringList lines;
    for (const QList<QVariant> &line : progressed)
        lines << line.first().toString();
    EXPECT_TRUE(lines.filter(process.name + QStringLiteral(" stopped after"))
                    .value(0)
                    .endsWith(QStringLiteral("(SIGKILL)")))
        << lines.join(u'\n').toStdString();
}

// Kills the opsdeck-sim serving `port` that a test let escape (its command
// line names the port).
void killSimOn(quint16 port)
{
    const QByteArray wanted = QByteArray("--port\0", 7) + QByteArray::number(port) + '\0';
    for (const QFileInfo &proc : QDir(QStringLiteral("/proc")).entryInfoList(QDir::Dirs)) {
        const QByteArray line =
            test::readFile(proc.absoluteFilePath() + QStringLiteral("/cmdline"));
        if (line.contains("opsdeck-sim") && line.contains(wanted) && proc.fileName().toInt() > 1)
            ::kill(pid_t(proc.fileName().toInt()), SIGKILL);
    }
}

// The proxy as a host's own start script runs it: no identity, and nothing
// listening on its port (a server still loading), so the command line decides.
processes::ManagedProcess proxyWithoutIdentity(const QTemporaryDir &dir, const QString &script)
{
    processes::ManagedProcess proxy;
    proxy.name = QStringLiteral("proxy");
    proxy.host = QStringLiteral("local");
    proxy.pidFile = dir.filePath(QStringLiteral("proxy.pid"));
    proxy.program = script;
    proxy.port = quint16(test::freeTcpPort());
    proxy.deriveMissingCommands();
    return proxy;
}

// Writes `pid` into the pid file of `process` and expects its stop to succeed
// and `pid` to be gone.
void expectStopped(processes::ProcessControl &control, const processes::ManagedProcess &process,
                   qint64 pid)
{
    ASSERT_TRUE(test::writeFile(process.pidFile, QByteArray::number(pid)));
    QSignalSpy stopped(&control, &processes::ProcessControl::stopFinished);
    control.stopAll({process});
    ASSERT_TRUE(stopped.wait(15000));
    EXPECT_TRUE(stopped.first().at(0).toBool()) << stopped.first().at(1).toString().toStdString();
    EXPECT_TRUE(waitUntil([&] { return !processAlive(pid); }, std::chrono::seconds(10)));
}

// serve_proxy.sh in `dir` and another script beside it, serve_proxy.sh.staging.
QString scriptAndACopyIn(const QTemporaryDir &dir)
{
    const QString script = dir.filePath(QStringLiteral("serve_proxy.sh"));
    EXPECT_TRUE(test::writeFile(script, "sleep 30\n"));
    EXPECT_TRUE(test::writeFile(script + QStringLiteral(".staging"), "sleep 30\n"));
    return script;
}

// Starts `program` with `arguments` (in `folder` when given), names it in
// the pid file of `process` and returns what the refused stop said; the test
// fails when the process was signalled.
QString refusedStopOf(processes::ProcessControl &control, const processes::ManagedProcess &process,
                      const QString &program, const QStringList &arguments,
                      const QString &folder = {},
                      std::function<bool(const QByteArray &)> started = {})
{
    QProcess other;
    other.setWorkingDirectory(folder);
    other.start(program, arguments);
    if (!other.waitForStarted()) {
        ADD_FAILURE() << "cannot start " << program.toStdString();
        return {};
    }
    const qint64 pid = other.processId();
    // Exec'ed, with the command line given (or the one `started` waits for),
    // before the check reads it.
    if (!started)
        started = [&](const QByteArray &line) {
            return line.contains(QFile::encodeName(arguments.last()));
        };
    EXPECT_TRUE(waitUntil(
        [&] { return started(test::readFile(QStringLiteral("/proc/%1/cmdline").arg(pid))); },
        std::chrono::seconds(5)));
    EXPECT_TRUE(test::writeFile(process.pidFile, QByteArray::number(pid)));
    const QString said = stopAndSay(control, process);
    EXPECT_TRUE(processAlive(pid))
        << arguments.join(u' ').toStdString() << ": " << said.toStdString();
    other.kill();
    other.waitForFinished();
    return said;
}

// Starts `process` and returns what its refused start said; the test fails
// when it started (its pid file written).
QString refusedStartOf(processes::ProcessControl &control, const processes::ManagedProcess &process)
{
    QSignalSpy started(&control, &processes::ProcessControl::startFinished);
    control.startAll({process});
    if (!started.wait(10000)) {
        ADD_FAILURE() << "no startFinished";
        return {};
    }
    EXPECT_FALSE(started.first().at(0).toBool()) << "the start must fail";
    EXPECT_FALSE(QFile::exists(process.pidFile)) << "nothing started";
    return started.first().at(1).toString();
}

qint64 pidFrom(const QString &pidFile)
{
    QFile file(pidFile);
    return file.open(QIODevice::ReadOnly) ? file.readAll().trimmed().toLongLong() : 0;
}

} // namespace

TEST(ProcessControl, StartsAndStopsDetachedProcesses)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const QVector<processes::ManagedProcess> processes{
        detachedSleeper(dir.path(), QStringLiteral("a"), false),
        detachedSleeper(dir.path(), QStringLiteral("b"), false)};

    QSignalSpy started(&control, &processes::ProcessControl::startFinished);
    control.startAll(processes);
    ASSERT_TRUE(started.wait(10000));
    EXPECT_TRUE(started.first().at(0).toBool());
    const qint64 pidA = pidFrom(processes[0].pidFile);
    const qint64 pidB = pidFrom(processes[1].pidFile);
    ASSERT_GT(pidA, 0);
    EXPECT_TRUE(processAlive(pidA));
    EXPECT_TRUE(processAlive(pidB));

    QSignalSpy stopped(&control, &processes::ProcessControl::stopFinished);
    control.stopAll(processes);
    ASSERT_TRUE(stopped.wait(15000));
    EXPECT_TRUE(stopped.first().at(0).toBool()) << stopped.first().at(1).toString().toStdString();
    EXPECT_FALSE(processAlive(pidA));
    EXPECT_FALSE(processAlive(pidB));
}

TEST(ProcessControl, EscalatesToSigkillAfterTheGracePeriod)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    processes::ProcessControl::Settings settings;
    settings.stopGrace = std::chrono::milliseconds(600);
    control.setSettings(settings);
    const auto stubborn = detachedSleeper(dir.path(), QStringLiteral("stubborn"), true);

    QSignalSpy started(&control, &processes::ProcessControl::startFinished);
    control.startAll({stubborn});
    ASSERT_TRUE(started.wait(10000));
    const qint64 pid = pidFrom(stubborn.pidFile);
    ASSERT_TRUE(waitUntil([&] { return processAlive(pid); }, std::chrono::seconds(5)));

    QSignalSpy progressed(&control, &processes::ProcessControl::progressed);
    QSignalSpy stopped(&control, &processes::ProcessControl::stopFinished);
    control.stopAll({stubborn});
    ASSERT_TRUE(stopped.wait(15000));
    EXPECT_TRUE(stopped.first().at(0).toBool());
    EXPECT_FALSE(processAlive(pid));
    bool killed = false;
    for (const auto &line : progressed)
        killed = killed || line.at(0).toString().contains(QStringLiteral("SIGKILL"));
    EXPECT_TRUE(killed) << "the stop should report that it needed SIGKILL";
}

TEST(ProcessControl, FailedStartNamesTheProcessAndHost)
{
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    processes::ManagedProcess broken;
    broken.name = QStringLiteral("decode");
    broken.host = QStringLiteral("local");
    broken.start = QStringLiteral("echo 'no such serve script' >&2; exit 3");
    QSignalSpy started(&control, &processes::ProcessControl::startFinished);
    control.startAll({broken});
    ASSERT_TRUE(started.wait(10000));
    EXPECT_FALSE(started.first().at(0).toBool());
    const QString message = started.first().at(1).toString();
    EXPECT_TRUE(message.contains(QStringLiteral("decode"))) << message.toStdString();
    EXPECT_TRUE(message.contains(QStringLiteral("local")));
    EXPECT_TRUE(message.contains(QStringLiteral("no such serve script")));
}

TEST(ProcessControl, UnreachableHostIsAFailureNotACrash)
{
    processes::ProcessControl control(
        [](const QString &) -> remote::Transport * { return nullptr; });
    processes::ManagedProcess process;
    process.name = QStringLiteral("prefill");
    process.host = QStringLiteral("gpu-1");
    process.start = QStringLiteral("true");
    QSignalSpy started(&control, &processes::ProcessControl::startFinished);
    control.startAll({process});
    ASSERT_TRUE(started.wait(5000));
    EXPECT_FALSE(started.first().at(0).toBool());
    EXPECT_TRUE(started.first().at(1).toString().contains(QStringLiteral("gpu-1")));
}

// A stale pid file (no identity: a host's own start script) whose pid now
// belongs to a process that does not run the program: never signalled, and
// the stop fails naming it.
TEST(ProcessControl, AStalePidFileNeverSignalsAnotherProcess)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    // An unrelated process whose pid a stale pid file names (pid reuse).
    QProcess unrelated;
    unrelated.start(QStringLiteral("sleep"), {QStringLiteral("30")});
    ASSERT_TRUE(unrelated.waitForStarted());
    processes::ManagedProcess decode;
    decode.name = QStringLiteral("decode");
    decode.host = QStringLiteral("local");
    decode.pidFile = dir.filePath(QStringLiteral("decode.pid"));
    decode.program = QStringLiteral("opsdeck-sim"); // what the real decode runs
    decode.deriveMissingCommands();
    ASSERT_TRUE(test::writeFile(decode.pidFile, QByteArray::number(unrelated.processId())));

    const QString said = stopAndSay(control, decode);
    EXPECT_TRUE(processAlive(unrelated.processId())) << "the unrelated process was signalled";
    EXPECT_TRUE(
        said.contains(QStringLiteral("names pid %1, which runs ").arg(unrelated.processId())) &&
        said.contains(QStringLiteral("sleep 30, not the decode (opsdeck-sim)")))
        << said.toStdString();
    EXPECT_TRUE(said.endsWith(QStringLiteral("nothing stopped"))) << said.toStdString();
    EXPECT_TRUE(QFile::exists(decode.pidFile)) << "kept for the person to look at";
    unrelated.kill();
    unrelated.waitForFinished();
}

// The demo's case: its proxy's pid file now names another opsdeck-sim (the
// right program, another process). The identity written at start tells them
// apart; neither is signalled and the stop fails naming both start times.
TEST(ProcessControl, ATamperedPidFileNamingAProcessOfTheSameProgramStopsNothing)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    processes::ManagedProcess proxy = detachedSleeper(dir.path(), QStringLiteral("proxy"), false);
    proxy.program = QStringLiteral("sleep");
    proxy.deriveMissingCommands();
    QSignalSpy started(&control, &processes::ProcessControl::startFinished);
    control.startAll({proxy});
    ASSERT_TRUE(started.wait(10000));
    const qint64 real = pidFrom(proxy.pidFile);
    const QString identity = processes::ManagedProcess::identityFileOf(proxy.pidFile);
    QFile identityFile(identity);
    ASSERT_TRUE(identityFile.open(QIODevice::ReadOnly)) << "written after the start";
    const QByteArray recorded = identityFile.readAll();
    identityFile.close();
    EXPECT_TRUE(recorded.startsWith(QByteArray("pid=" + QByteArray::number(real) + "\nstart=")))
        << recorded.toStdString();
    EXPECT_TRUE(recorded.contains("\nargs=sleep 60")) << recorded.toStdString();
    EXPECT_EQ(QFile::permissions(identity) & (QFile::ReadOther | QFile::ReadGroup), 0);

    QProcess other; // the same program, another process
    other.start(QStringLiteral("sleep"), {QStringLiteral("61")});
    ASSERT_TRUE(other.waitForStarted());
    ASSERT_TRUE(test::writeFile(proxy.pidFile, QByteArray::number(other.processId())));
    const QString said = stopAndSay(control, proxy);
    EXPECT_TRUE(processAlive(other.processId()));
    EXPECT_TRUE(processAlive(real));
    const QRegularExpression message(
        QStringLiteral("names pid %1, started \\d\\d:\\d\\d:\\d\\d, not the proxy started "
                       "\\d\\d:\\d\\d:\\d\\d \\(pid %2\\): nothing stopped")
            .arg(other.processId())
            .arg(real));
    EXPECT_TRUE(message.match(said).hasMatch()) << said.toStdString();
    other.kill();
    other.waitForFinished();
    ::kill(pid_t(real), SIGKILL);
}

// A pid reused by a sleeping process with the right name but another start
// time (the identity says when ours started), and a pid file naming pid 1.
TEST(ProcessControl, AReusedPidWithAnotherStartTimeAndPidOneAreNeverSignalled)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    QProcess sleeper;
    sleeper.start(QStringLiteral("bash"),
                  {QStringLiteral("-c"), QStringLiteral("exec -a opsdeck-sim sleep 30")});
    ASSERT_TRUE(sleeper.waitForStarted());
    processes::ManagedProcess decode;
    decode.name = QStringLiteral("decode");
    decode.host = QStringLiteral("local");
    decode.pidFile = dir.filePath(QStringLiteral("decode.pid"));
    decode.program = QStringLiteral("opsdeck-sim");
    decode.deriveMissingCommands();
    ASSERT_TRUE(test::writeFile(decode.pidFile, QByteArray::number(sleeper.processId())));
    // What the start recorded for the decode that had this pid before: ticks 1.
    ASSERT_TRUE(test::writeFile(processes::ManagedProcess::identityFileOf(decode.pidFile),
                                "pid=" + QByteArray::number(sleeper.processId()) +
                                    "\nstart=1\nexe=/usr/bin/opsdeck-sim\nargs=opsdeck-sim\n"));
    QString said = stopAndSay(control, decode);
    EXPECT_TRUE(processAlive(sleeper.processId()));
    EXPECT_TRUE(said.contains(QStringLiteral("not the decode started"))) << said.toStdString();

    ASSERT_TRUE(test::writeFile(decode.pidFile, "1\n"));
    said = stopAndSay(control, decode);
    EXPECT_TRUE(said.contains(QStringLiteral("names pid 1, never signalled: nothing stopped")))
        << said.toStdString();
    sleeper.kill();
    sleeper.waitForFinished();
}

// A process OpsDeck starts (the demo's) is only ever stopped through its
// identity: with the identity gone, nothing is signalled; with the pid file
// garbled while the real process runs, the stop fails instead of forgetting it.
TEST(ProcessControl, WithoutItsIdentityOrWithAGarbledPidFileNothingIsSignalledNorForgotten)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    processes::ManagedProcess decode = detachedSleeper(dir.path(), QStringLiteral("decode"), false);
    decode.program = QStringLiteral("sleep");
    decode.requireIdentity = true;
    decode.deriveMissingCommands();
    QSignalSpy started(&control, &processes::ProcessControl::startFinished);
    control.startAll({decode});
    ASSERT_TRUE(started.wait(10000));
    const qint64 real = pidFrom(decode.pidFile);
    const QString identity = processes::ManagedProcess::identityFileOf(decode.pidFile);
    const QByteArray recorded = test::readFile(identity);
    ASSERT_FALSE(recorded.isEmpty());

    const QByteArrayList garbledPidFiles{QByteArray("abc\n"), QByteArray("-5\n"),
                                         QByteArray("0" + QByteArray::number(real)), QByteArray()};
    for (const QByteArray &garbled : garbledPidFiles) {
        ASSERT_TRUE(test::writeFile(decode.pidFile, garbled));
        const QString said = stopAndSay(control, decode);
        EXPECT_TRUE(
            said.contains(QStringLiteral("(pid %1) still runs: nothing stopped").arg(real)) ||
            said.contains(QStringLiteral("not the decode started")))
            << garbled.toStdString() << ": " << said.toStdString();
        EXPECT_TRUE(processAlive(real));
        EXPECT_TRUE(QFile::exists(identity)) << "the identity must not be forgotten";
    }

    // Identity removed: even the right pid running the right program is left alone.
    ASSERT_TRUE(test::writeFile(decode.pidFile, QByteArray::number(real)));
    ASSERT_TRUE(QFile::remove(identity));
    const QString said = stopAndSay(control, decode);
    EXPECT_TRUE(said.contains(QStringLiteral("there is no identity beside it")))
        << said.toStdString();
    EXPECT_TRUE(processAlive(real));
    ::kill(pid_t(real), SIGKILL);
}

TEST(ProcessControl, StoppingRemovesThePidFileSoASecondStopIsANoOp)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const auto sleeper = detachedSleeper(dir.path(), QStringLiteral("sleeper"), false);
    QSignalSpy started(&control, &processes::ProcessControl::startFinished);
    control.startAll({sleeper});
    ASSERT_TRUE(started.wait(10000));
    QSignalSpy stopped(&control, &processes::ProcessControl::stopFinished);
    control.stopAll({sleeper});
    ASSERT_TRUE(stopped.wait(15000));
    EXPECT_FALSE(QFile::exists(sleeper.pidFile));
    QSignalSpy progressed(&control, &processes::ProcessControl::progressed);
    control.stopAll({sleeper});
    ASSERT_TRUE(stopped.wait(10000));
    ASSERT_EQ(progressed.size(), 1) << "no stop command for a process that is not running";
    EXPECT_TRUE(progressed.first().at(0).toString().contains(QStringLiteral("was not running")));
}

// A status that gives no answer never counts as "not running": a script bash
// refuses (a CRLF `then`), or one that asks for input and gets EOF. The
// process is left alone with its pid file, and the failure says why.
TEST(ProcessControl, AStatusWithoutAnAnswerStopsNothingAndKeepsThePidFile)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    auto sleeper = detachedSleeper(dir.path(), QStringLiteral("sleeper"), false);
    QSignalSpy started(&control, &processes::ProcessControl::startFinished);
    control.startAll({sleeper});
    ASSERT_TRUE(started.wait(10000));
    const qint64 pid = pidFrom(sleeper.pidFile);
    ASSERT_TRUE(processAlive(pid));

    const QStringList statuses{
        QStringLiteral("if kill -0 \"$(cat %1)\"; then\r\n  exit 0\r\nfi\r\nexit 1\r\n")
            .arg(sleeper.pidFile),
        QStringLiteral("printf 'Check the pid? [y/N] '; read a; [ \"$a\" = y ] || exit 1")};
    for (const QString &status : statuses) {
        sleeper.status = status;
        QSignalSpy stopped(&control, &processes::ProcessControl::stopFinished);
        control.stopAll({sleeper});
        ASSERT_TRUE(stopped.wait(15000));
        EXPECT_FALSE(stopped.first().at(0).toBool()) << status.toStdString();
        const QString message = stopped.first().at(1).toString();
        EXPECT_TRUE(message.contains(QStringLiteral("cannot tell whether sleeper runs")))
            << message.toStdString();
        EXPECT_TRUE(processAlive(pid)) << status.toStdString();
        EXPECT_TRUE(QFile::exists(sleeper.pidFile)) << status.toStdString();
    }
    ::kill(static_cast<pid_t>(pid), SIGKILL);
}

// A host's own start script writes no identity: the process serving the
// service's port is the service. A pid file naming a process that merely runs
// the serve script's name is refused, naming who serves the port; the pid
// that holds the port is stopped although its command line does not name the
// script.
TEST(ProcessControl, WithoutAnIdentityThePortSaysWhichProcessIsTheService)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    test::SimProcess decodeServer;
    ASSERT_TRUE(decodeServer.start(test::simArgs(QStringLiteral("decode"))))
        << decodeServer.errorText().toStdString();
    QProcess impostor; // the right name on its command line, no port
    impostor.start(QStringLiteral("bash"),
                   {QStringLiteral("-c"), QStringLiteral("exec -a serve_decode.sh sleep 30")});
    ASSERT_TRUE(impostor.waitForStarted());
    processes::ManagedProcess decode;
    decode.name = QStringLiteral("decode");
    decode.host = QStringLiteral("local");
    decode.pidFile = dir.filePath(QStringLiteral("decode.pid"));
    decode.program = QStringLiteral("serve_decode.sh");
    decode.port = decodeServer.port();
    decode.deriveMissingCommands();

    ASSERT_TRUE(test::writeFile(decode.pidFile, QByteArray::number(impostor.processId())));
    const QString said = stopAndSay(control, decode);
    EXPECT_TRUE(processAlive(impostor.processId()));
    EXPECT_TRUE(processAlive(decodeServer.pid()));
    EXPECT_TRUE(said.contains(QStringLiteral("names pid %1, which runs serve_decode.sh 30, but "
                                             "port %2 is served by pid %3, ")
                                  .arg(impostor.processId())
                                  .arg(decodeServer.port())
                                  .arg(decodeServer.pid())) &&
                said.endsWith(QStringLiteral("not by it: nothing stopped")))
        << said.toStdString();

    ASSERT_TRUE(test::writeFile(decode.pidFile, QByteArray::number(decodeServer.pid())));
    QSignalSpy stopped(&control, &processes::ProcessControl::stopFinished);
    control.stopAll({decode});
    ASSERT_TRUE(stopped.wait(15000));
    EXPECT_TRUE(stopped.first().at(0).toBool()) << stopped.first().at(1).toString().toStdString();
    EXPECT_TRUE(
        waitUntil([&] { return !processAlive(decodeServer.pid()); }, std::chrono::seconds(10)));
    impostor.kill();
    impostor.waitForFinished();
}

// Without an identity and with nothing listening on the port (a server
// still loading), the command line decides, and naming the serve script is
// not enough: `tail -f` on it is never signalled; the shell running it is.
TEST(ProcessControl, WithoutAnIdentityOrAListenerOnlyTheShellRunningTheScriptIsTheService)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const QString script = dir.filePath(QStringLiteral("serve_proxy.sh"));
    ASSERT_TRUE(test::writeFile(script, "sleep 30\n"));
    QProcess reader; // someone looking at the serve script
    reader.start(QStringLiteral("tail"), {QStringLiteral("-f"), script});
    ASSERT_TRUE(reader.waitForStarted());
    const processes::ManagedProcess proxy = proxyWithoutIdentity(dir, script);

    ASSERT_TRUE(test::writeFile(proxy.pidFile, QByteArray::number(reader.processId())));
    const QString said = stopAndSay(control, proxy);
    EXPECT_TRUE(processAlive(reader.processId())) << "tail -f on the script was signalled";
    EXPECT_TRUE(said.contains(QStringLiteral("tail is not a shell running %1").arg(script)))
        << said.toStdString();

    QProcess serving; // the serve script, still in its shell
    serving.start(QStringLiteral("bash"), {script});
    ASSERT_TRUE(serving.waitForStarted());
    expectStopped(control, proxy, serving.processId());
    reader.kill();
    reader.waitForFinished();
}

// Without an identity or a listener, a shell counts as the service only when
// the script it runs is the serve script: a loop that greps the script, or
// a shell running a copy of it beside it, names the script too and was once
// stopped in its place.
TEST(ProcessControl, WithoutAnIdentityAShellRunningAnotherScriptOrACommandIsNeverSignalled)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const QString script = scriptAndACopyIn(dir);
    const processes::ManagedProcess proxy = proxyWithoutIdentity(dir, script);

    const QStringList others[] = {
        {QStringLiteral("-c"), QStringLiteral("while :; do grep -c sleep %1 >/dev/null; sleep 1; "
                                              "done")
                                   .arg(script)},
        {script + QStringLiteral(".staging")},
        {QStringLiteral("-o"), QStringLiteral("pipefail"), script + QStringLiteral(".staging")},
    };
    for (const QStringList &arguments : others) {
        const QString said = refusedStopOf(control, proxy, QStringLiteral("bash"), arguments);
        EXPECT_TRUE(said.contains(QStringLiteral("(not %1): nothing stopped").arg(script)))
            << said.toStdString();
    }

    // Named relative to a folder, the script names nothing: the shell may
    // have changed folder since (another team's serve.sh that cd's here).
    const QString said = refusedStopOf(control, proxy, QStringLiteral("bash"),
                                       {QStringLiteral("./serve_proxy.sh")}, dir.path());
    EXPECT_TRUE(
        said.contains(QStringLiteral("a bash running ./serve_proxy.sh, named from a folder")))
        << said.toStdString();

    // The script itself, named whole after shell options, is.
    QProcess serving;
    serving.start(QStringLiteral("bash"),
                  {QStringLiteral("-x"), QStringLiteral("-o"), QStringLiteral("pipefail"), script});
    ASSERT_TRUE(serving.waitForStarted());
    expectStopped(control, proxy, serving.processId());
}

// The command line as the checks read it: the program is the executable,
// not argv[0] (`exec -a bash tail -f serve.sh`), and the command line is read
// whole (cut at 4096 bytes, a shell running serve.sh.staging once read as
// running serve.sh).
TEST(ProcessControl, WithoutAnIdentityTheExecutableAndTheWholeCommandLineDecide)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const QString script = scriptAndACopyIn(dir);
    const processes::ManagedProcess proxy = proxyWithoutIdentity(dir, script);

    const QString bash = QStringLiteral("/bin/bash");
    // bash\0 -e\0 ... -ee\0 ... <script>|.staging\0: the first 4096 bytes end
    // with the serve script's name.
    const int padding =
        4096 - int(QFile::encodeName(bash).size() + 1) - int(QFile::encodeName(script).size());
    const int fours = (3 - padding % 3) % 3; // "-ee\0" (4 bytes) then "-e\0" (3)
    QStringList longLine;
    for (int i = 0; i < fours; ++i)
        longLine << QStringLiteral("-ee");
    for (int i = 0; i < (padding - 4 * fours) / 3; ++i)
        longLine << QStringLiteral("-e");
    longLine << script + QStringLiteral(".staging");
    // bash takes its long options with one dash too: `-init-file serve.sh`
    // names the (ignored) init file; the script it runs is the next word.
    // Once tail runs, its argv[0] is "bash".
    const QString spoofed =
        refusedStopOf(control, proxy, bash,
                      {QStringLiteral("-c"), QStringLiteral("exec -a bash tail -f %1").arg(script)},
                      {}, [](const QByteArray &line) {
                          return line.startsWith({"bash\0-f", 8});
                      });
    EXPECT_TRUE(spoofed.contains(QStringLiteral("tail is not a shell running")))
        << spoofed.toStdString();
    const QStringList others[] = {
        longLine, {QStringLiteral("-init-file"), script, script + QStringLiteral(".staging")}};
    for (const QStringList &arguments : others) {
        const QString said = refusedStopOf(control, proxy, bash, arguments);
        EXPECT_TRUE(said.contains(QStringLiteral("nothing stopped"))) << said.toStdString();
    }
    // A copy of tail named bash runs tail, not a shell.
    const QString fakeShell = dir.filePath(QStringLiteral("bash"));
    ASSERT_TRUE(QFile::copy(QStringLiteral("/usr/bin/tail"), fakeShell));
    const QString said = refusedStopOf(control, proxy, fakeShell, {QStringLiteral("-f"), script});
    EXPECT_TRUE(said.contains(QStringLiteral("bash is not a shell running"))) << said.toStdString();
}

// The port is the service's on its URL's address: a server on the same port
// of another local address (127.0.0.2 for 127.0.0.1) is someone else's.
TEST(ProcessControl, WithoutAnIdentityTheSamePortOnAnotherAddressIsNotTheService)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    test::SimProcess other;
    ASSERT_TRUE(other.start(test::simArgs(QStringLiteral("engine"),
                                          {QStringLiteral("--host"), QStringLiteral("127.0.0.2")})))
        << other.errorText().toStdString();
    processes::ManagedProcess proxy = proxyWithoutIdentity(dir, scriptAndACopyIn(dir));
    proxy.port = other.port();
    proxy.portHost = QStringLiteral("127.0.0.1");
    proxy.deriveMissingCommands();
    ASSERT_TRUE(test::writeFile(proxy.pidFile, QByteArray::number(other.pid())));
    const QString said = stopAndSay(control, proxy);
    EXPECT_TRUE(processAlive(other.pid())) << said.toStdString();
    EXPECT_TRUE(said.contains(QStringLiteral("nothing stopped"))) << said.toStdString();

    // Nor does the other family's wildcard: 0.0.0.0 does not serve [::1], as
    // an IPv6-only [::] does not serve 127.0.0.1.
    test::SimProcess wildcard;
    ASSERT_TRUE(wildcard.start(test::simArgs(
        QStringLiteral("engine"), {QStringLiteral("--host"), QStringLiteral("0.0.0.0")})))
        << wildcard.errorText().toStdString();
    proxy.port = wildcard.port();
    proxy.portHost = QStringLiteral("::1");
    proxy.deriveMissingCommands();
    ASSERT_TRUE(test::writeFile(proxy.pidFile, QByteArray::number(wildcard.pid())));
    const QString v6 = stopAndSay(control, proxy);
    EXPECT_TRUE(processAlive(wildcard.pid())) << v6.toStdString();

    // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is the IPv4 one.
    test::SimProcess engine;
    ASSERT_TRUE(engine.start(test::simArgs(QStringLiteral("engine"))))
        << engine.errorText().toStdString();
    proxy.port = engine.port();
    proxy.portHost = QStringLiteral("::ffff:127.0.0.1");
    proxy.deriveMissingCommands();
    expectStopped(control, proxy, engine.pid());
}

// A parent of two services (a supervisor, named by a wrong pid file) holds
// the service's port through one child and another's through the other: it
// is not the service.
TEST(ProcessControl, WithoutAnIdentityAParentOfOtherServicesIsNotTheService)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const quint16 mine = quint16(test::freeTcpPort());
    const quint16 theirs = quint16(test::freeTcpPort());
    const QString sim = shell::singleQuoted(test::binPath(QStringLiteral("opsdeck-sim")));
    const QString supervisor =
        QStringLiteral("%1 --role engine --ready-delay 0 --port %2 & %1 --role engine "
                       "--ready-delay 0 --port %3 & wait")
            .arg(sim)
            .arg(mine)
            .arg(theirs);
    QProcess parent;
    parent.start(QStringLiteral("bash"), {QStringLiteral("-c"), supervisor});
    ASSERT_TRUE(parent.waitForStarted());
    ASSERT_TRUE(
        waitUntil([&] { return listening(mine) && listening(theirs); }, std::chrono::seconds(10)));
    const QList<QByteArray> children =
        test::readFile(QStringLiteral("/proc/%1/task/%1/children").arg(parent.processId()))
            .simplified()
            .split(' ');
    processes::ManagedProcess proxy = proxyWithoutIdentity(dir, scriptAndACopyIn(dir));
    proxy.port = mine;
    proxy.portHost = QStringLiteral("127.0.0.1");
    proxy.deriveMissingCommands();
    ASSERT_TRUE(test::writeFile(proxy.pidFile, QByteArray::number(parent.processId())));
    const QString said = stopAndSay(control, proxy);
    EXPECT_TRUE(processAlive(parent.processId())) << said.toStdString();
    EXPECT_TRUE(said.contains(QStringLiteral("serves port %1, not port %2").arg(theirs).arg(mine)))
        << said.toStdString();
    for (const QByteArray &child : children)
        if (child.toInt() > 1)
            ::kill(pid_t(child.toInt()), SIGKILL);
    parent.kill();
    parent.waitForFinished();
}

// A parent that runs the service as one child and other work beside it (a
// tmux or screen server, the server in one window): stopping it would end
// the other work too. A shell running the serve script, whose server is
// piped into a logger, is the service, and its children are stopped with it.
TEST(ProcessControl, WithoutAnIdentityAParentOfTheServiceAndOfOtherWorkIsNotTheService)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const quint16 port = quint16(test::freeTcpPort());
    const QString sim = shell::singleQuoted(test::binPath(QStringLiteral("opsdeck-sim"))) +
                        QStringLiteral(" --role engine --ready-delay 0 --port %1").arg(port);
    QProcess windows; // one window the proxy, another the person's own work
    windows.start(QStringLiteral("bash"),
                  {QStringLiteral("-c"), sim + QStringLiteral(" & sleep 301 & wait")});
    ASSERT_TRUE(windows.waitForStarted());
    ASSERT_TRUE(waitUntil([&] { return listening(port); }, std::chrono::seconds(10)));
    const auto childrenOf = [](qint64 pid) {
        return test::readFile(QStringLiteral("/proc/%1/task/%1/children").arg(pid))
            .simplified()
            .split(' ');
    };
    const QList<QByteArray> children = childrenOf(windows.processId());
    processes::ManagedProcess proxy = proxyWithoutIdentity(dir, scriptAndACopyIn(dir));
    proxy.port = port;
    proxy.portHost = QStringLiteral("127.0.0.1");
    proxy.deriveMissingCommands();
    ASSERT_TRUE(test::writeFile(proxy.pidFile, QByteArray::number(windows.processId())));
    const QString said = stopAndSay(control, proxy);
    EXPECT_TRUE(processAlive(windows.processId())) << said.toStdString();
    EXPECT_TRUE(
        said.contains(QStringLiteral("it does not hold port %1 itself, and pid ").arg(port)) &&
        said.contains(QStringLiteral("sleep 301, not the proxy: stopping it would stop "
                                     "more than the proxy; nothing stopped")))
        << said.toStdString();
    for (const QByteArray &child : children)
        if (child.toInt() > 1)
            ::kill(pid_t(child.toInt()), SIGKILL);
    windows.kill();
    windows.waitForFinished();
    ASSERT_TRUE(waitUntil([&] { return !listening(port); }, std::chrono::seconds(10)));

    // The serve script itself, its server piped into a logger: the service,
    // the server and the logger stopped with its shell.
    ASSERT_TRUE(test::writeFile(proxy.program, sim.toUtf8() + " 2>&1 | cat >/dev/null\n"));
    QProcess served;
    served.start(QStringLiteral("bash"), {proxy.program});
    ASSERT_TRUE(served.waitForStarted());
    ASSERT_TRUE(waitUntil([&] { return listening(port); }, std::chrono::seconds(10)));
    const QList<QByteArray> pipeline = childrenOf(served.processId());
    ASSERT_EQ(pipeline.size(), 2);
    expectStopped(control, proxy, served.processId());
    for (const QByteArray &child : pipeline)
        EXPECT_TRUE(
            waitUntil([&] { return !processAlive(child.toLongLong()); }, std::chrono::seconds(10)));
    EXPECT_FALSE(listening(port));
    served.waitForFinished();
}

// A process that only holds a copy of the server's listening socket (a
// helper the server started without closing it) is not the server: stopping
// it would leave the service serving, reported as stopped.
TEST(ProcessControl, WithoutAnIdentityAProcessHoldingACopyOfTheServersSocketIsNotTheService)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    QTcpServer server; // the real server: this test
    ASSERT_TRUE(server.listen(QHostAddress::LocalHost));
    // A copy without close-on-exec, inherited by a helper.
    const pid_t helper = spawnHolding(server, {QStringLiteral("sleep"), QStringLiteral("302")});
    ASSERT_GT(helper, 0);
    processes::ManagedProcess proxy = proxyWithoutIdentity(dir, QStringLiteral("sleep"));
    proxy.port = server.serverPort();
    proxy.portHost = QStringLiteral("127.0.0.1");
    proxy.deriveMissingCommands();
    ASSERT_TRUE(test::writeFile(proxy.pidFile, QByteArray::number(helper)));
    const QString said = stopAndSay(control, proxy);
    EXPECT_TRUE(processAlive(helper));
    EXPECT_TRUE(said.contains(QStringLiteral("port %1's socket is also held by pid %2, ")
                                  .arg(server.serverPort())
                                  .arg(QCoreApplication::applicationPid())) &&
                said.endsWith(QStringLiteral("which does not run under it: pid %1 has a copy of "
                                             "the socket and is not surely the proxy; nothing "
                                             "stopped")
                                  .arg(helper)))
        << said.toStdString();
    ::kill(helper, SIGKILL);
    reaped(helper, std::chrono::seconds(5));
}

// A server that closes its port at SIGTERM and goes on running (a graceful
// shutdown waiting on open connections): the stop follows the process it
// signalled, by pid and start time, not the check that found it by its
// port, and escalates to SIGKILL; it is not "stopped" while it runs.
TEST(ProcessControl, AServerThatClosedItsPortButStillRunsIsNotStopped)
{
    QTemporaryDir dir;
    QTcpServer socket;
    ASSERT_TRUE(socket.listen(QHostAddress::LocalHost));
    const quint16 port = socket.serverPort();
    // The server: a shell holding the listening socket as fd 3, which it
    // closes at SIGTERM and then runs on.
    const pid_t server = spawnHolding(
        socket, {QStringLiteral("bash"), QStringLiteral("-c"),
                 QStringLiteral("trap 'exec 3>&-' TERM; while :; do sleep 0.1; done")});
    ASSERT_GT(server, 0);
    socket.close(); // the server's alone now
    ASSERT_TRUE(listening(port));
    processes::ManagedProcess proxy = proxyWithoutIdentity(dir, scriptAndACopyIn(dir));
    proxy.port = port;
    proxy.portHost = QStringLiteral("127.0.0.1");
    proxy.deriveMissingCommands();
    ASSERT_TRUE(test::writeFile(proxy.pidFile, QByteArray::number(server)));
    expectStoppedBySigkill(proxy);
    // Gone by itself (SIGKILL), not a zombie of this test.
    EXPECT_TRUE(reaped(server, std::chrono::seconds(5)));
}

// A process whose main thread exited at SIGTERM while another drains on: its
// leader shows Z, yet it runs. It is not "stopped" (nor "not running" to a
// start, which would launch a second beside it): SIGKILL past the grace.
TEST(ProcessControl, AProcessWhoseMainThreadExitedButRunsOnIsNotStopped)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    processes::ManagedProcess server;
    server.name = QStringLiteral("decode");
    server.host = QStringLiteral("local");
    server.pidFile = dir.filePath(QStringLiteral("decode.pid"));
    server.requireIdentity = true;
    server.start =
        QStringLiteral("setsid %1 </dev/null >/dev/null 2>&1 & echo $! >%2")
            .arg(shell::singleQuoted(test::binPath(QStringLiteral("opsdeck-test-mainthreadexits"))),
                 shell::singleQuoted(server.pidFile));
    server.deriveMissingCommands();
    QSignalSpy started(&control, &processes::ProcessControl::startFinished);
    control.startAll({server});
    ASSERT_TRUE(started.wait(10000));
    ASSERT_TRUE(started.first().at(0).toBool()) << started.first().at(1).toString().toStdString();
    const qint64 pid = pidFrom(server.pidFile);
    const QString tasks = QStringLiteral("/proc/%1/task").arg(pid);
    ASSERT_TRUE(waitUntil(
        [&] { return QDir(tasks).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size() == 2; },
        std::chrono::seconds(5)));
    expectStoppedBySigkill(server);
    EXPECT_TRUE(waitUntil([&] { return !processAlive(pid); }, std::chrono::seconds(5)));
    if (processAlive(pid))
        ::kill(pid_t(pid), SIGKILL);
}

// Without a pid file there is no kill command: a service that goes past the
// grace is waited for, and its stop is not said to be a SIGKILL's.
TEST(ProcessControl, AStopWithoutAKillCommandIsNeverCalledASigkill)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    processes::ProcessControl::Settings settings;
    settings.stopGrace = std::chrono::milliseconds(300);
    settings.killGrace = std::chrono::seconds(5);
    control.setSettings(settings);
    const QString running = dir.filePath(QStringLiteral("running"));
    ASSERT_TRUE(test::writeFile(running, ""));
    processes::ManagedProcess proxy;
    proxy.name = QStringLiteral("proxy");
    proxy.host = QStringLiteral("local");
    // Goes about a second after it is asked to: past the grace.
    proxy.stop = QStringLiteral("( sleep 1; rm -f %1 ) </dev/null >/dev/null 2>&1 &")
                     .arg(shell::singleQuoted(running));
    proxy.status = QStringLiteral("[ -e %1 ]").arg(shell::singleQuoted(running));
    proxy.deriveMissingCommands();
    QSignalSpy stopped(&control, &processes::ProcessControl::stopFinished);
    QSignalSpy progressed(&control, &processes::ProcessControl::progressed);
    control.stopAll({proxy});
    ASSERT_TRUE(stopped.wait(15000));
    EXPECT_TRUE(stopped.first().at(0).toBool()) << stopped.first().at(1).toString().toStdString();
    QStringList lines;
    for (const QList<QVariant> &line : progressed)
        lines << line.first().toString();
    const QString done = lines.filter(QStringLiteral("proxy stopped after")).value(0);
    EXPECT_FALSE(done.isEmpty() || done.contains(QStringLiteral("SIGKILL")))
        << lines.join(u'\n').toStdString();
}

// Without a pid file nothing marks what a stop signalled: an inventory's
// stop command whose output holds the marker (a server's reply to
// `curl .../shutdown`) does not stand in for the status, which still says
// the service runs.
TEST(ProcessControl, AStopsOwnOutputNeverNamesWhatItSignalled)
{
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    processes::ProcessControl::Settings settings;
    settings.stopGrace = std::chrono::milliseconds(300);
    settings.killGrace = std::chrono::milliseconds(300);
    control.setSettings(settings);
    processes::ManagedProcess proxy;
    proxy.name = QStringLiteral("proxy");
    proxy.host = QStringLiteral("local");
    proxy.stop = QStringLiteral("echo %1 1:1")
                     .arg(QLatin1StringView(processes::ManagedProcess::kSignalledMarker));
    proxy.status = QStringLiteral("exit 0"); // it runs on
    proxy.deriveMissingCommands();
    const QString said = stopAndSay(control, proxy);
    EXPECT_TRUE(said.startsWith(QStringLiteral("proxy on host local still runs ")) &&
                said.contains(QStringLiteral(" ms after its stop command, and there is no kill "
                                             "command (no pid file)")))
        << said.toStdString();
}

// The decode as OpsDeck starts it (an identity written), its serve script
// `body` run by `setsid bash -c`, serving `port` for a 127.0.0.1 URL.
processes::ManagedProcess startedDecode(processes::ProcessControl &control,
                                        const QTemporaryDir &dir, quint16 port, const QString &body)
{
    processes::ManagedProcess decode;
    decode.name = QStringLiteral("decode");
    decode.host = QStringLiteral("local");
    decode.pidFile = dir.filePath(QStringLiteral("decode.pid"));
    decode.port = port;
    decode.portHost = QStringLiteral("127.0.0.1");
    decode.requireIdentity = true;
    decode.start = QStringLiteral("setsid bash -c %1 </dev/null >/dev/null 2>&1 & echo $! >%2")
                       .arg(shell::singleQuoted(body), shell::singleQuoted(decode.pidFile));
    decode.deriveMissingCommands();
    QSignalSpy started(&control, &processes::ProcessControl::startFinished);
    control.startAll({decode});
    EXPECT_TRUE(started.wait(10000));
    EXPECT_TRUE(!started.isEmpty() && started.first().at(0).toBool());
    EXPECT_TRUE(waitUntil([&] { return listening(port); }, std::chrono::seconds(10)));
    return decode;
}

// The sim serving `port` on every address, IPv4 and IPv6 (a dual-stack [::]
// socket answers a 127.0.0.1 URL).
QString dualStackSim(quint16 port)
{
    return shell::singleQuoted(test::binPath(QStringLiteral("opsdeck-sim"))) +
           QStringLiteral(" --role decode --ready-delay 0 --host :: --port %1").arg(port);
}

// A serve script OpsDeck started that did not exec its server: its shell
// is stopped with the server under it, not alone (which would leave the
// server serving), and the stop sees a dual-stack [::] listener go.
TEST(ProcessControl, AStartedShellThatDidNotExecIsStoppedWithItsServer)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const quint16 port = quint16(test::freeTcpPort());
    const processes::ManagedProcess decode =
        startedDecode(control, dir, port, dualStackSim(port) + QStringLiteral("; true"));
    const qint64 shellPid = pidFrom(decode.pidFile);
    const QList<QByteArray> children =
        test::readFile(QStringLiteral("/proc/%1/task/%1/children").arg(shellPid))
            .simplified()
            .split(' ');
    ASSERT_EQ(children.size(), 1);
    expectStopped(control, decode, shellPid);
    EXPECT_FALSE(processAlive(children.first().toLongLong()));
    EXPECT_FALSE(listening(port));
    killSimOn(port); // left running when the stop was wrong
}

// A server that got away from the shell OpsDeck started (forked twice): the
// shell goes at SIGTERM, the server serves on. That is no stop, also when it
// listens on [::] for a 127.0.0.1 URL: said, naming the server, and the pid
// file stays.
TEST(ProcessControl, AStopIsNotDoneWhileTheServicesPortIsStillServed)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    processes::ProcessControl::Settings settings;
    settings.stopGrace = std::chrono::milliseconds(500);
    settings.killGrace = std::chrono::milliseconds(500);
    control.setSettings(settings);
    const quint16 port = quint16(test::freeTcpPort());
    const processes::ManagedProcess decode =
        startedDecode(control, dir, port,
                      QStringLiteral("( %1 & ) </dev/null >/dev/null 2>&1; exec sleep 120")
                          .arg(dualStackSim(port)));
    const qint64 shellPid = pidFrom(decode.pidFile);
    const QString said = stopAndSay(control, decode);
    EXPECT_FALSE(processAlive(shellPid));
    const QRegularExpressionMatch server =
        QRegularExpression(QStringLiteral("^decode on host local: the process its pid file names "
                                          "is gone, but port %1 is still served by pid (\\d+), ")
                               .arg(port))
            .match(said);
    EXPECT_TRUE(server.hasMatch() &&
                said.endsWith(QStringLiteral("not stopped (that process is not shown to be the "
                                             "decode's; stop it by hand, or write its pid into "
                                             "%1)")
                                  .arg(decode.pidFile)))
        << said.toStdString();
    EXPECT_TRUE(QFileInfo::exists(decode.pidFile));
    killSimOn(port);
    EXPECT_TRUE(waitUntil([&] { return !listening(port); }, std::chrono::seconds(10)));
}

// Runs `script` on this machine as a host's script runs; its result.
remote::CommandResult runHere(const QString &script)
{
    remote::LocalTransport local;
    QSignalSpy finished(&local, &remote::Transport::commandFinished);
    remote::CommandRequest request;
    request.script = script;
    request.deadline = std::chrono::seconds(20);
    local.run(request);
    EXPECT_TRUE(finished.wait(25000));
    return finished.isEmpty() ? remote::CommandResult{}
                              : finished.first().at(1).value<remote::CommandResult>();
}

// The check a health wait makes on a 200: the started process (or one under
// it) holds the port, also as a dual-stack [::] listener for a 127.0.0.1
// URL; another process serving the port is named; a started process gone
// is said as such.
TEST(ProcessControl, TheHealthCheckSaysWhetherTheStartedProcessServesThePort)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const quint16 port = quint16(test::freeTcpPort());
    processes::ManagedProcess decode =
        startedDecode(control, dir, port, QStringLiteral("exec ") + dualStackSim(port));
    remote::CommandResult result = runHere(decode.holdsPort);
    EXPECT_EQ(result.exitCode, 0) << result.standardOutput.toStdString();
    EXPECT_TRUE(result.standardOutput.isEmpty()) << result.standardOutput.toStdString();

    QTcpServer other; // another process's server on the port the URL names
    ASSERT_TRUE(other.listen(QHostAddress::LocalHost));
    decode.port = other.serverPort();
    decode.deriveMissingCommands();
    result = runHere(decode.holdsPort);
    EXPECT_EQ(result.exitCode, processes::ManagedProcess::kNotOurs);
    EXPECT_TRUE(result.standardOutput.startsWith(QStringLiteral("port %1 is served by pid %2, ")
                                                     .arg(other.serverPort())
                                                     .arg(QCoreApplication::applicationPid())
                                                     .toUtf8()))
        << result.standardOutput.toStdString();

    decode.port = port;
    decode.deriveMissingCommands();
    expectStopped(control, decode, pidFrom(decode.pidFile));
    ASSERT_TRUE(
        test::writeFile(decode.pidFile, QByteArray::number(QCoreApplication::applicationPid())));
    result = runHere(decode.holdsPort);
    EXPECT_NE(result.exitCode, 0) << result.standardOutput.toStdString();
}

// A service the inventory gives no serve script (a proxy started by its own
// tooling), down, its pid reused: nothing shows the pid is it.
TEST(ProcessControl, WithoutAnIdentityAListenerOrAServeScriptNothingIsTheService)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const processes::ManagedProcess proxy = proxyWithoutIdentity(dir, QString());
    const QString said =
        refusedStopOf(control, proxy, QStringLiteral("sleep"), {QStringLiteral("30")});
    EXPECT_TRUE(said.contains(QStringLiteral("nothing shows it is the proxy")))
        << said.toStdString();
}

// Two services started from one serve script by a host's own scripts (no
// identity): a pid file naming the other's shell, whose child serves the
// other's port, stops nothing while this service's port is not listening.
TEST(ProcessControl, WithoutAnIdentityAShellServingAnotherPortIsNotTheService)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const quint16 otherPort = quint16(test::freeTcpPort()); // the other engine's port
    const QString script = dir.filePath(QStringLiteral("serve_engine.sh"));
    ASSERT_TRUE(test::writeFile(
        script, shell::singleQuoted(test::binPath(QStringLiteral("opsdeck-sim"))).toUtf8() +
                    " --role engine --ready-delay 0 --port \"$PORT\"\n"));
    QProcess other; // engine-b, started by hand, its shell still there
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("PORT"), QString::number(otherPort));
    other.setProcessEnvironment(environment);
    other.start(QStringLiteral("bash"), {script});
    ASSERT_TRUE(other.waitForStarted());
    ASSERT_TRUE(waitUntil([&] { return listening(otherPort); }, std::chrono::seconds(10)));
    // Read now: the sim outlives a shell a wrong stop kills.
    const QList<QByteArray> children =
        test::readFile(QStringLiteral("/proc/%1/task/%1/children").arg(other.processId()))
            .simplified()
            .split(' ');
    const processes::ManagedProcess engineA = proxyWithoutIdentity(dir, script);
    ASSERT_TRUE(test::writeFile(engineA.pidFile, QByteArray::number(other.processId())));
    const QString said = stopAndSay(control, engineA);
    EXPECT_TRUE(processAlive(other.processId()));
    EXPECT_TRUE(said.contains(
        QStringLiteral("serves port %1, not the proxy's port %2").arg(otherPort).arg(engineA.port)))
        << said.toStdString();
    // The sim (the shell's child) first, then the shell.
    for (const QByteArray &child : children)
        if (child.toInt() > 1)
            ::kill(pid_t(child.toInt()), SIGKILL);
    other.kill();
    other.waitForFinished();
    EXPECT_TRUE(waitUntil([&] { return !listening(otherPort); }, std::chrono::seconds(10)));
}

// The identity names the boot as well: an identity written before a reboot
// names nobody now, whatever pid and start time it holds. (The executable is
// written for the reader only: a serve script's bash execs the server after
// the identity is written.)
TEST(ProcessControl, AnIdentityOfAnEarlierBootStopsNothing)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    processes::ManagedProcess decode = detachedSleeper(dir.path(), QStringLiteral("decode"), false);
    decode.requireIdentity = true;
    decode.deriveMissingCommands();
    QSignalSpy started(&control, &processes::ProcessControl::startFinished);
    control.startAll({decode});
    ASSERT_TRUE(started.wait(10000));
    const qint64 real = pidFrom(decode.pidFile);
    const QString identity = processes::ManagedProcess::identityFileOf(decode.pidFile);
    const QByteArray recorded = test::readFile(identity);
    ASSERT_TRUE(recorded.contains("\nboot=")) << recorded.toStdString();
    QString said;

    QByteArray earlierBoot = recorded;
    earlierBoot.replace(QRegularExpression(u"\nboot=[^\n]*"_qs)
                            .match(QString::fromUtf8(recorded))
                            .captured()
                            .toUtf8(),
                        "\nboot=00000000-0000-0000-0000-000000000000");
    ASSERT_TRUE(test::writeFile(identity, earlierBoot));
    said = stopAndSay(control, decode);
    EXPECT_TRUE(said.contains(u"is from an earlier boot: nothing stopped"_qs))
        << said.toStdString();
    EXPECT_TRUE(processAlive(real));
    ::kill(pid_t(real), SIGKILL);
}

// The console that started a process dies before hearing back (its commands
// run in their own session and outlive it): the identity is written all the
// same, so a later stop acts on the process.
TEST(ProcessControl, TheIdentityIsWrittenEvenWhenTheStarterGoesAway)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ManagedProcess process = detachedSleeper(dir.path(), QStringLiteral("a"), false);
    process.requireIdentity = true;
    // The start goes on a moment after the pid file is written.
    process.start += QStringLiteral("; sleep 0.5");
    process.deriveMissingCommands();
    {
        processes::ProcessControl starter([&](const QString &) { return &local; });
        starter.startAll({process});
        ASSERT_TRUE(
            waitUntil([&] { return pidFrom(process.pidFile) > 0; }, std::chrono::seconds(5)));
    } // gone before its start finished
    const qint64 pid = pidFrom(process.pidFile);
    ASSERT_TRUE(waitUntil(
        [&] { return QFile::exists(processes::ManagedProcess::identityFileOf(process.pidFile)); },
        std::chrono::seconds(5)));
    processes::ProcessControl control([&](const QString &) { return &local; });
    QSignalSpy stopped(&control, &processes::ProcessControl::stopFinished);
    control.stopAll({process});
    ASSERT_TRUE(stopped.wait(10000));
    EXPECT_TRUE(stopped.first().at(0).toBool()) << stopped.first().at(1).toString().toStdString();
    EXPECT_TRUE(waitUntil([&] { return !processAlive(pid); }, std::chrono::seconds(5)));
}

// Two starts of one process at once (a resume while the start of a run
// whose connection was lost still goes on on the host): one launches it, the
// other waits for the host's start lock, finds it running and launches
// nothing; both succeed, and the pid file names the one that runs.
TEST(ProcessControl, TwoStartsAtOnceLaunchOneProcess)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl first([&](const QString &) { return &local; });
    processes::ProcessControl second([&](const QString &) { return &local; });
    processes::ManagedProcess slow = detachedSleeper(dir.path(), QStringLiteral("decode"), false);
    const QString launches = dir.filePath(QStringLiteral("launches"));
    slow.start =
        QStringLiteral("sleep 1; echo launched >>%1; ").arg(shell::singleQuoted(launches)) +
        slow.start;
    slow.deriveMissingCommands();

    QSignalSpy firstStarted(&first, &processes::ProcessControl::startFinished);
    QSignalSpy secondStarted(&second, &processes::ProcessControl::startFinished);
    first.startAll({slow});
    second.startAll({slow});
    ASSERT_TRUE(waitUntil([&] { return !firstStarted.isEmpty() && !secondStarted.isEmpty(); },
                          std::chrono::seconds(20)));
    EXPECT_TRUE(firstStarted.first().at(0).toBool())
        << firstStarted.first().at(1).toString().toStdString();
    EXPECT_TRUE(secondStarted.first().at(0).toBool())
        << secondStarted.first().at(1).toString().toStdString();
    EXPECT_EQ(test::readFile(launches), QByteArray("launched\n")) << "launched once";
    const qint64 pid = pidFrom(slow.pidFile);
    EXPECT_TRUE(processAlive(pid));

    QSignalSpy stopped(&first, &processes::ProcessControl::stopFinished);
    first.stopAll({slow});
    ASSERT_TRUE(stopped.wait(15000));
    EXPECT_TRUE(stopped.first().at(0).toBool()) << stopped.first().at(1).toString().toStdString();
    EXPECT_FALSE(processAlive(pid));
}

// Something else planted at the start lock's path (a FIFO would block the
// start until its deadline): the start fails at once, naming it.
TEST(ProcessControl, AStartLockThatIsNotAFileFailsTheStartNamingIt)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const auto sleeper = detachedSleeper(dir.path(), QStringLiteral("proxy"), false);
    ASSERT_EQ(
        ::mkfifo(QFile::encodeName(sleeper.pidFile + QStringLiteral(".start-lock")).constData(),
                 0600),
        0);
    const QString said = refusedStartOf(control, sleeper);
    EXPECT_TRUE(said.contains(QStringLiteral("is not a regular file"))) << said.toStdString();
}

// An identity that cannot be written (a full disk; here a file size limit)
// fails the start, saying the process runs and how to
// stop it: a start said ok would leave a process stop refuses as not ours.
TEST(ProcessControl, AStartWhoseIdentityCannotBeWrittenFailsSayingSo)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const auto sleeper = detachedSleeper(dir.path(), QStringLiteral("decode"), false);
    const QString identity = sleeper.pidFile + QStringLiteral(".identity");
    // A file size limit the host's shell inherits (its SIGXFSZ ignored, so
    // that writes fail as on a full disk): the pid fits, the identity not.
    rlimit was{};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &was), 0);
    const auto previous = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = was;
    small.rlim_cur = 32;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    QSignalSpy started(&control, &processes::ProcessControl::startFinished);
    control.startAll({sleeper});
    const bool finished = started.wait(10000);
    ::setrlimit(RLIMIT_FSIZE, &was);
    std::signal(SIGXFSZ, previous);
    ASSERT_TRUE(finished);
    const qint64 pid = pidFrom(sleeper.pidFile);
    const QString said = started.first().at(1).toString();
    EXPECT_FALSE(started.first().at(0).toBool()) << said.toStdString();
    EXPECT_TRUE(
        said.contains(QStringLiteral("its identity %1 could not be written").arg(identity)) &&
        said.contains(QStringLiteral("kill %1").arg(pid)))
        << said.toStdString();
    EXPECT_FALSE(QFile::exists(identity));
    ASSERT_GT(pid, 1);
    ::kill(pid_t(pid), SIGKILL);
    EXPECT_TRUE(waitUntil([&] { return !processAlive(pid); }, std::chrono::seconds(5)));
}

// A file of the person's at a pid file's identity name (`<pid file>.identity`)
// was removed by a stop of a service that was not running, and written over
// by a start: now the stop refuses, a stop by the inventory's own status
// removes only the stale pid file, and the start starts nothing.
TEST(ProcessControl, AFileOfThePersonsAtTheIdentitysNameIsNeitherWrittenOverNorRemoved)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const auto decode = detachedSleeper(dir.path(), QStringLiteral("decode"), false);
    const QString identity = processes::ManagedProcess::identityFileOf(decode.pidFile);
    const QByteArray notes = "my precious notes\n";
    ASSERT_TRUE(test::writeFile(identity, notes));
    ASSERT_TRUE(test::writeFile(decode.pidFile, "3999999\n"));
    const QString said = stopAndSay(control, decode);
    EXPECT_TRUE(said.contains(QStringLiteral("not an identity OpsDeck wrote")))
        << said.toStdString();
    EXPECT_EQ(test::readFile(identity), notes);
    EXPECT_EQ(test::readFile(decode.pidFile), "3999999\n");
    processes::ManagedProcess ownStatus = decode;
    ownStatus.status = QStringLiteral("exit 1");
    ownStatus.statusIsDerived = false;
    {
        QSignalSpy gone(&control, &processes::ProcessControl::stopFinished);
        control.stopAll({ownStatus});
        ASSERT_TRUE(gone.wait(10000));
        EXPECT_TRUE(gone.first().at(0).toBool()) << gone.first().at(1).toString().toStdString();
    }
    EXPECT_FALSE(QFile::exists(decode.pidFile)) << "the stale pid file goes";
    EXPECT_EQ(test::readFile(identity), notes);
    const QString refused = refusedStartOf(control, decode);
    EXPECT_TRUE(refused.contains(QStringLiteral("not started"))) << refused.toStdString();
    EXPECT_EQ(test::readFile(identity), notes);
}

// The identity is written through `<pid file>.identity.tmp`, once removed
// first whatever it held: a file of the person's there is kept and the start
// starts nothing; a leftover of a start that died writing it goes.
TEST(ProcessControl, AFileOfThePersonsAtTheIdentitysTemporaryNameIsKept)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const auto proxy = detachedSleeper(dir.path(), QStringLiteral("proxy"), false);
    const QString temporary =
        processes::ManagedProcess::identityFileOf(proxy.pidFile) + QStringLiteral(".tmp");
    ASSERT_TRUE(test::writeFile(temporary, "precious\n"));
    const QString said = refusedStartOf(control, proxy);
    EXPECT_TRUE(said.contains(QStringLiteral("is not a leftover identity"))) << said.toStdString();
    EXPECT_EQ(test::readFile(temporary), "precious\n");
    ASSERT_TRUE(test::writeFile(temporary, ""));
    QSignalSpy started(&control, &processes::ProcessControl::startFinished);
    control.startAll({proxy});
    ASSERT_TRUE(started.wait(10000));
    EXPECT_TRUE(started.first().at(0).toBool()) << started.first().at(1).toString().toStdString();
    EXPECT_FALSE(QFileInfo::exists(temporary));
    const qint64 pid = pidFrom(proxy.pidFile);
    ASSERT_GT(pid, 1);
    ::kill(pid_t(pid), SIGKILL);
    EXPECT_TRUE(waitUntil([&] { return !processAlive(pid); }, std::chrono::seconds(5)));
}

// A link at the start lock's name, even one naming no file yet, is not
// followed (the start would create the file it names).
TEST(ProcessControl, ALinkAtTheStartLocksNameIsNotFollowed)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const auto sleeper = detachedSleeper(dir.path(), QStringLiteral("proxy"), false);
    const QString target = dir.filePath(QStringLiteral("not-yet"));
    ASSERT_TRUE(QFile::link(target, sleeper.pidFile + QStringLiteral(".start-lock")));
    const QString said = refusedStartOf(control, sleeper);
    EXPECT_TRUE(said.contains(QStringLiteral("is not a regular file"))) << said.toStdString();
    EXPECT_FALSE(QFile::exists(target));
}

// An inventory naming another file as a service's pid file (the data dir's
// audit log) once had it removed as a stale pid file by the stop: text that
// is no pid stops nothing and removes nothing.
TEST(ProcessControl, APidFileHoldingOtherTextIsNeverRemovedAsStale)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    processes::ManagedProcess proxy = detachedSleeper(dir.path(), QStringLiteral("proxy"), false);
    const QByteArray log = "{\"action\":\"accepted-new\",\"prev\":\"0000\"}\n";
    ASSERT_TRUE(test::writeFile(proxy.pidFile, log));
    const QString said = stopAndSay(control, proxy);
    EXPECT_TRUE(said.contains(QStringLiteral("holds no pid"))) << said.toStdString();
    EXPECT_EQ(test::readFile(proxy.pidFile), log);
    // Text after more than 64 blank bytes, or behind NUL bytes (a disk
    // image), which the shell's $(...) drops, is no pid file either.
    // And a pid of no running process followed by more: the file is not a
    // stale pid file but another file that starts with digits.
    const QByteArray others[] = {QByteArray(70, '\n') + "notes, keep\n",
                                 QByteArray(4096, '\0') + "payload\n", QByteArray(8, '\0'),
                                 "3999999" + QByteArray(80, '\0') + "keep\n",
                                 "3999999\n" + QByteArray(70, ' ') + "keep\n"};
    for (const QByteArray &other : others) {
        ASSERT_TRUE(test::writeFile(proxy.pidFile, other));
        const QString again = stopAndSay(control, proxy);
        EXPECT_TRUE(again.contains(QStringLiteral("holds no pid"))) << again.toStdString();
        EXPECT_EQ(test::readFile(proxy.pidFile), other);
    }
    // Nor is a FIFO, a folder or a link in its place (to a pid file, even).
    const QString stale = dir.filePath(QStringLiteral("stale.pid"));
    ASSERT_TRUE(test::writeFile(stale, "3999999\n"));
    ASSERT_TRUE(QFile::remove(proxy.pidFile));
    for (const auto &plant : std::initializer_list<std::function<bool()>>{
             [&] { return ::mkfifo(QFile::encodeName(proxy.pidFile).constData(), 0600) == 0; },
             [&] { return QDir().mkdir(proxy.pidFile); },
             [&] { return QFile::link(stale, proxy.pidFile); }}) {
        ASSERT_TRUE(plant());
        const QString again = stopAndSay(control, proxy);
        EXPECT_TRUE(again.contains(QStringLiteral("is a link or not a regular file")))
            << again.toStdString();
        EXPECT_TRUE(QFileInfo(proxy.pidFile).exists() || QFileInfo(proxy.pidFile).isSymLink());
        ASSERT_TRUE(QFile::remove(proxy.pidFile) || QDir().rmdir(proxy.pidFile));
    }
    EXPECT_TRUE(QFile::exists(stale));
    // Nor when the inventory's own status (which checks no file) says the
    // service is not running: it is gone, and the file is kept.
    processes::ManagedProcess ownStatus = proxy;
    ownStatus.status = QStringLiteral("exit 1");
    ownStatus.statusIsDerived = false;
    ASSERT_TRUE(test::writeFile(proxy.pidFile, log));
    {
        QSignalSpy gone(&control, &processes::ProcessControl::stopFinished);
        control.stopAll({ownStatus});
        ASSERT_TRUE(gone.wait(10000));
        EXPECT_TRUE(gone.first().at(0).toBool()) << gone.first().at(1).toString().toStdString();
        EXPECT_EQ(test::readFile(proxy.pidFile), log);
    }
    // An empty pid file, or one holding a newline, is a stale one: removed.
    ASSERT_TRUE(test::writeFile(proxy.pidFile, "\n"));
    QSignalSpy stopped(&control, &processes::ProcessControl::stopFinished);
    control.stopAll({proxy});
    ASSERT_TRUE(stopped.wait(10000));
    EXPECT_TRUE(stopped.first().at(0).toBool()) << stopped.first().at(1).toString().toStdString();
    EXPECT_FALSE(QFile::exists(proxy.pidFile));
}

// An inventory giving the proxy the recorder's pid file once had a restart
// of the proxy stop the history recorder: the identity names who started.
TEST(ProcessControl, APidFileOfAnotherServiceStopsNothing)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const auto recorder = detachedSleeper(dir.path(), QStringLiteral("recorder"), false);
    QSignalSpy started(&control, &processes::ProcessControl::startFinished);
    control.startAll({recorder});
    ASSERT_TRUE(started.wait(10000));
    ASSERT_TRUE(started.first().at(0).toBool()) << started.first().at(1).toString().toStdString();
    const qint64 pid = pidFrom(recorder.pidFile);
    processes::ManagedProcess proxy = recorder;
    proxy.name = QStringLiteral("proxy");
    proxy.status.clear();
    proxy.deriveMissingCommands();
    const QString said = stopAndSay(control, proxy);
    EXPECT_TRUE(said.contains(QStringLiteral("names the recorder OpsDeck started, not the proxy")))
        << said.toStdString();
    EXPECT_TRUE(processAlive(pid));
    QSignalSpy stopped(&control, &processes::ProcessControl::stopFinished);
    control.stopAll({recorder});
    ASSERT_TRUE(stopped.wait(15000));
    EXPECT_TRUE(stopped.first().at(0).toBool()) << stopped.first().at(1).toString().toStdString();
}

// The start lock sits beside the pid file in the serve folder, where
// teammates read: whatever the umask, it is never writable by others.
TEST(ProcessControl, TheStartLockIsNotWorldWritableWhateverTheUmask)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    processes::ProcessControl control([&](const QString &) { return &local; });
    const auto sleeper = detachedSleeper(dir.path(), QStringLiteral("proxy"), false);
    QSignalSpy started(&control, &processes::ProcessControl::startFinished);
    const mode_t old = ::umask(0);
    control.startAll({sleeper});
    const bool answered = started.wait(10000);
    ::umask(old);
    ASSERT_TRUE(answered);
    EXPECT_TRUE(started.first().at(0).toBool()) << started.first().at(1).toString().toStdString();
    struct stat st
    {
    };
    ASSERT_EQ(
        ::stat(QFile::encodeName(sleeper.pidFile + QStringLiteral(".start-lock")).constData(), &st),
        0);
    EXPECT_EQ(st.st_mode & 0777, 0644u);
    QSignalSpy stopped(&control, &processes::ProcessControl::stopFinished);
    control.stopAll({sleeper});
    ASSERT_TRUE(stopped.wait(15000));
}
