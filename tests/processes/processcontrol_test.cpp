// ProcessControl: start through the inventory's commands, and a verified
// stop that escalates to SIGKILL when SIGTERM is ignored.
#include "localtransport.h"
#include "managedprocess.h"
#include "processcontrol.h"
#include "shellquote.h"
#include "testsupport.h"

#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <csignal>
#include <gtest/gtest.h>

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
    QFile pidFile(decode.pidFile);
    ASSERT_TRUE(pidFile.open(QIODevice::WriteOnly));
    pidFile.write(QByteArray::number(unrelated.processId()));
    pidFile.close();

    QSignalSpy stopped(&control, &processes::ProcessControl::stopFinished);
    QSignalSpy progressed(&control, &processes::ProcessControl::progressed);
    control.stopAll({decode});
    ASSERT_TRUE(stopped.wait(10000));
    EXPECT_TRUE(stopped.first().at(0).toBool());
    EXPECT_TRUE(processAlive(unrelated.processId())) << "the unrelated process was signalled";
    EXPECT_FALSE(QFile::exists(decode.pidFile)) << "the stale pid file is removed";
    ASSERT_FALSE(progressed.isEmpty());
    EXPECT_TRUE(progressed.last().at(0).toString().contains(QStringLiteral("was not running")));
    unrelated.kill();
    unrelated.waitForFinished();
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
