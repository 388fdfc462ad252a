// opsdeck-cli demo up / status / demo down on this machine: four healthy
// services, an unhealthy status when one dies, a clean replacement when the
// demo is started twice, and no process left behind.
#include "clitest.h"
#include "simprocess.h"
#include "testsupport.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <csignal>
#include <gtest/gtest.h>
#include <sys/stat.h>

using opsdeck::test::processAlive;
using opsdeck::test::runCli;

namespace {

QHash<QString, qint64> pidsIn(const QString &demoDir)
{
    QHash<QString, qint64> pids;
    for (const QFileInfo &info :
         QDir(demoDir + QStringLiteral("/run")).entryInfoList({QStringLiteral("*.pid")})) {
        QFile file(info.absoluteFilePath());
        if (file.open(QIODevice::ReadOnly))
            pids.insert(info.baseName(), file.readAll().trimmed().toLongLong());
    }
    return pids;
}

class CliDemo : public ::testing::Test
{
protected:
    void TearDown() override
    {
        // Whatever a failed assertion left running is stopped here.
        runCli({QStringLiteral("demo"), QStringLiteral("down"), QStringLiteral("--dir"), demoDir()},
               m_home.path());
    }
    QString demoDir() const { return m_home.path() + QStringLiteral("/demo"); }
    // demo down succeeds and none of `pids` runs after it.
    void downLeavesNothing(const QHash<QString, qint64> &pids)
    {
        const auto down = runCli(
            {QStringLiteral("demo"), QStringLiteral("down"), QStringLiteral("--dir"), demoDir()},
            home(), std::chrono::seconds(60));
        EXPECT_EQ(down.exitCode, 0) << down.standardError.toStdString();
        for (auto it = pids.cbegin(); it != pids.cend(); ++it)
            EXPECT_FALSE(processAlive(it.value())) << it.key().toStdString() << " left running";
    }
    QString home() const { return m_home.path(); }
    // demo up in demoDir() with `traffic` clients; its pids by name (empty
    // when it failed, said here).
    QHash<QString, qint64> upWithTraffic(const QString &traffic)
    {
        const auto up =
            runCli({QStringLiteral("demo"), QStringLiteral("up"), QStringLiteral("--dir"),
                    demoDir(), QStringLiteral("--traffic"), traffic},
                   home(), std::chrono::seconds(90));
        EXPECT_EQ(up.exitCode, 0) << up.standardError.toStdString();
        return up.exitCode == 0 ? pidsIn(demoDir()) : QHash<QString, qint64>();
    }
    // Each of `pids` runs (`running`) or has exited.
    static void expectRunning(const QHash<QString, qint64> &pids, bool running)
    {
        for (auto it = pids.cbegin(); it != pids.cend(); ++it)
            EXPECT_EQ(processAlive(it.value()), running)
                << it.key().toStdString() << (running ? " was stopped" : " left running");
    }

private:
    QTemporaryDir m_home;
};

} // namespace

TEST_F(CliDemo, UpStatusDownLeavesNothingBehind)
{
    const auto up = runCli({QStringLiteral("demo"), QStringLiteral("up"), QStringLiteral("--dir"),
                            demoDir(), QStringLiteral("--traffic"), QStringLiteral("2")},
                           home(), std::chrono::seconds(90));
    ASSERT_EQ(up.exitCode, 0) << up.standardError.toStdString();
    const QString inventory = up.lastLine();
    EXPECT_EQ(inventory, demoDir() + QStringLiteral("/inventory.yaml"));

    const auto status = runCli({QStringLiteral("status"), QStringLiteral("--inventory"), inventory,
                                QStringLiteral("--json")});
    ASSERT_EQ(status.exitCode, 0) << status.standardOutput.toStdString();
    const QJsonArray services = status.json().object().value(QStringLiteral("services")).toArray();
    ASSERT_EQ(services.size(), 4);
    QStringList roles;
    for (const auto &value : services) {
        const QJsonObject service = value.toObject();
        EXPECT_EQ(service.value(QStringLiteral("state")).toString(), QStringLiteral("healthy"));
        EXPECT_GT(service.value(QStringLiteral("latency_ms")).toDouble(), 0);
        EXPECT_TRUE(service.value(QStringLiteral("url"))
                        .toString()
                        .startsWith(QStringLiteral("http://127.0.0.1:")));
        roles << service.value(QStringLiteral("role")).toString();
    }
    roles.sort();
    EXPECT_EQ(roles, (QStringList{QStringLiteral("decode"), QStringLiteral("prefill"),
                                  QStringLiteral("proxy"), QStringLiteral("router")}));

    // A sim that dies makes status unhealthy and names it.
    const auto pids = pidsIn(demoDir());
    ASSERT_EQ(pids.size(), 5);
    ::kill(static_cast<pid_t>(pids.value(QStringLiteral("decode"))), SIGKILL);
    ASSERT_TRUE(opsdeck::test::waitUntil(
        [&] { return !processAlive(pids.value(QStringLiteral("decode"))); },
        std::chrono::seconds(5)));
    const auto degraded = runCli({QStringLiteral("status"), QStringLiteral("--inventory"),
                                  inventory, QStringLiteral("--json")});
    EXPECT_EQ(degraded.exitCode, 1);
    for (const auto &value : degraded.json().object().value(QStringLiteral("services")).toArray()) {
        const QJsonObject service = value.toObject();
        if (service.value(QStringLiteral("name")).toString() == QStringLiteral("decode")) {
            EXPECT_EQ(service.value(QStringLiteral("state")).toString(), QStringLiteral("down"));
        }
    }

    const auto down =
        runCli({QStringLiteral("demo"), QStringLiteral("down"), QStringLiteral("--dir"), demoDir()},
               home());
    EXPECT_EQ(down.exitCode, 0) << down.standardError.toStdString();
    for (auto it = pids.cbegin(); it != pids.cend(); ++it)
        EXPECT_FALSE(processAlive(it.value())) << it.key().toStdString() << " still runs";
}

// The attack that once worked: the proxy's pid file made to name an
// unrelated opsdeck-sim. demo down stops every other process, signals neither
// proxy, and fails naming the pid file, both pids and their start times.
TEST_F(CliDemo, DownNeverStopsAProcessItDidNotStart)
{
    const auto up = runCli({QStringLiteral("demo"), QStringLiteral("up"), QStringLiteral("--dir"),
                            demoDir(), QStringLiteral("--traffic"), QStringLiteral("1")},
                           home(), std::chrono::seconds(90));
    ASSERT_EQ(up.exitCode, 0) << up.standardError.toStdString();
    const auto pids = pidsIn(demoDir());
    const qint64 realProxy = pids.value(QStringLiteral("proxy"));
    ASSERT_GT(realProxy, 1);
    opsdeck::test::SimProcess unrelated;
    ASSERT_TRUE(unrelated.start(opsdeck::test::simArgs(QStringLiteral("engine"))))
        << unrelated.errorText().toStdString();
    const QString proxyPidFile = demoDir() + QStringLiteral("/run/proxy.pid");
    ASSERT_TRUE(opsdeck::test::writeFile(proxyPidFile, QByteArray::number(unrelated.pid()) + '\n'));

    const auto down =
        runCli({QStringLiteral("demo"), QStringLiteral("down"), QStringLiteral("--dir"), demoDir()},
               home());
    EXPECT_NE(down.exitCode, 0);
    const QString error = QString::fromUtf8(down.standardError);
    EXPECT_TRUE(error.contains(
        QStringLiteral("%1 names pid %2, started ").arg(proxyPidFile).arg(unrelated.pid())))
        << error.toStdString();
    EXPECT_TRUE(error.contains(QStringLiteral("not the proxy started"))) << error.toStdString();
    EXPECT_TRUE(error.contains(QStringLiteral("(pid %1): nothing stopped").arg(realProxy)))
        << error.toStdString();
    EXPECT_FALSE(error.contains(QStringLiteral("every process exited"))) << error.toStdString();
    EXPECT_TRUE(processAlive(unrelated.pid())) << "an unrelated process was stopped";
    for (auto it = pids.cbegin(); it != pids.cend(); ++it) {
        if (it.key() != QStringLiteral("proxy")) {
            EXPECT_FALSE(processAlive(it.value())) << it.key().toStdString() << " still runs";
        }
    }
    // The real proxy was left for the person: stopped here by its pid.
    ::kill(static_cast<pid_t>(realProxy), SIGKILL);
    QFile::remove(proxyPidFile);
}

// Under umask 000 the demo's folder, scripts, inventory and pid files are
// still the user's alone: another user must not rewrite what demo down acts on.
TEST_F(CliDemo, TheDemoFolderIsTheUsersAloneWhateverTheUmask)
{
    QProcess up;
    up.setProcessEnvironment([&] {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("XDG_DATA_HOME"), home());
        return environment;
    }());
    up.start(QStringLiteral("bash"),
             {QStringLiteral("-c"),
              QStringLiteral("umask 000; exec \"$0\" demo up --dir \"$1\" "
                             "--traffic 1 </dev/null"),
              opsdeck::test::binPath(QStringLiteral("opsdeck-cli")), demoDir()});
    ASSERT_TRUE(up.waitForFinished(90000));
    ASSERT_EQ(up.exitCode(), 0) << up.readAllStandardError().toStdString();
    const auto mode = [](const QString &path) {
        struct stat st
        {
        };
        return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? int(st.st_mode & 0777) : -1;
    };
    EXPECT_EQ(mode(demoDir()), 0700);
    EXPECT_EQ(mode(demoDir() + QStringLiteral("/run")), 0700);
    EXPECT_EQ(mode(demoDir() + QStringLiteral("/logs")), 0700);
    EXPECT_EQ(mode(demoDir() + QStringLiteral("/inventory.yaml")), 0600);
    EXPECT_EQ(mode(demoDir() + QStringLiteral("/serve_decode.sh")), 0700);
    EXPECT_EQ(mode(demoDir() + QStringLiteral("/run/decode.pid")), 0600);
    EXPECT_EQ(mode(demoDir() + QStringLiteral("/run/decode.pid.identity")), 0600);
    EXPECT_EQ(mode(demoDir() + QStringLiteral("/run/traffic.pid")), 0600);
    EXPECT_EQ(mode(demoDir() + QStringLiteral("/logs/decode.log")), 0600);
}

TEST_F(CliDemo, StartingTwiceReplacesTheFirstCleanly)
{
    const QStringList upArgs{QStringLiteral("demo"),      QStringLiteral("up"),
                             QStringLiteral("--dir"),     demoDir(),
                             QStringLiteral("--traffic"), QStringLiteral("0")};
    ASSERT_EQ(runCli(upArgs, home(), std::chrono::seconds(90)).exitCode, 0);
    const auto first = pidsIn(demoDir());
    ASSERT_EQ(first.size(), 4);
    const auto second = runCli(upArgs, home(), std::chrono::seconds(90));
    ASSERT_EQ(second.exitCode, 0) << second.standardError.toStdString();
    for (auto it = first.cbegin(); it != first.cend(); ++it)
        EXPECT_FALSE(processAlive(it.value()))
            << "old " << it.key().toStdString() << " was not replaced";
    const auto status =
        runCli({QStringLiteral("status"), QStringLiteral("--inventory"), second.lastLine()});
    EXPECT_EQ(status.exitCode, 0) << status.standardOutput.toStdString();
}

TEST_F(CliDemo, BadOptionsAreRefusedBeforeAnythingStarts)
{
    const auto fault =
        runCli({QStringLiteral("demo"), QStringLiteral("up"), QStringLiteral("--dir"), demoDir(),
                QStringLiteral("--fault"), QStringLiteral("decode-stall=3")},
               home());
    EXPECT_EQ(fault.exitCode, 2);
    EXPECT_TRUE(fault.standardError.contains("decode-stall=3"));
    EXPECT_EQ(runCli({QStringLiteral("demo"), QStringLiteral("up"), QStringLiteral("--traffic"),
                      QStringLiteral("lots")},
                     home())
                  .exitCode,
              2);
    EXPECT_EQ(runCli({QStringLiteral("demo"), QStringLiteral("sideways")}, home()).exitCode, 2);
    const QString file = home() + QStringLiteral("/a-file");
    QFile(file).open(QIODevice::WriteOnly);
    const auto notAFolder = runCli(
        {QStringLiteral("demo"), QStringLiteral("up"), QStringLiteral("--dir"), file}, home());
    EXPECT_EQ(notAFolder.exitCode, 2);
    EXPECT_TRUE(notAFolder.standardError.contains("not a folder"))
        << notAFolder.standardError.toStdString();
    const auto unsafe = runCli({QStringLiteral("demo"), QStringLiteral("up"),
                                QStringLiteral("--dir"), home() + QStringLiteral("/it's $x\n\x1b")},
                               home());
    EXPECT_EQ(unsafe.exitCode, 2);
    // Every character refused is named, as the terminal can show it.
    EXPECT_TRUE(unsafe.standardError.contains("\"'\", '$', '\\x0a', '\\x1b'"))
        << unsafe.standardError.toStdString();
    EXPECT_FALSE(unsafe.standardError.contains('\x1b')) << "an escape reaches the terminal";
    EXPECT_FALSE(QFile::exists(demoDir() + QStringLiteral("/inventory.yaml")));
    // ": " would end a YAML key inside the inventory's paths.
    const auto colon = runCli({QStringLiteral("demo"), QStringLiteral("up"),
                               QStringLiteral("--dir"), home() + QStringLiteral("/a: b")},
                              home());
    EXPECT_EQ(colon.exitCode, 2);
    EXPECT_TRUE(colon.standardError.contains("a colon before a space"))
        << colon.standardError.toStdString();
    EXPECT_FALSE(QFile::exists(home() + QStringLiteral("/a: b/inventory.yaml")));
}

TEST_F(CliDemo, DefaultFolderFollowsXdgDataHome)
{
    const auto down = runCli({QStringLiteral("demo"), QStringLiteral("down")}, home());
    EXPECT_EQ(down.exitCode, 0) << "no demo there is not an error";
    EXPECT_TRUE(QDir(home() + QStringLiteral("/opsdeck")).exists())
        << "state lives under XDG_DATA_HOME/opsdeck";
}

TEST_F(CliDemo, AServiceThatDiesDuringStartFailsFastWithItsLog)
{
    // A stand-in for opsdeck-sim that dies the way a server does when its port is taken.
    const QString fake = home() + QStringLiteral("/dying-sim");
    QFile script(fake);
    ASSERT_TRUE(script.open(QIODevice::WriteOnly));
    script.write("#!/bin/sh\necho \"error: port 30001 is already in use\" >&2\nexit 2\n");
    script.close();
    script.setPermissions(script.permissions() | QFileDevice::ExeOwner);

    QElapsedTimer clock;
    clock.start();
    const auto up =
        runCli({QStringLiteral("demo"), QStringLiteral("up"), QStringLiteral("--dir"), demoDir()},
               home(), std::chrono::seconds(60), {QStringLiteral("OPSDECK_SIM=") + fake});
    EXPECT_EQ(up.exitCode, 1);
    EXPECT_LT(clock.elapsed(), 30000) << "a dead service must not wait for the health deadline";
    EXPECT_TRUE(up.standardError.contains("exited during start-up"))
        << up.standardError.toStdString();
    EXPECT_TRUE(up.standardError.contains("port 30001 is already in use"))
        << up.standardError.toStdString();
    EXPECT_TRUE(up.standardError.contains("prefill.log")) << "names the log it quotes";
}

// A recorder that stops at once (the folder holds another program's
// history.sqlite, which it never opens for writing) once left `demo up`
// saying it succeeded while nothing recorded: it fails with the recorder's
// log, stops what it started, and the file stays as it was.
TEST_F(CliDemo, AnUpWhoseRecorderCannotRecordFailsSayingSo)
{
    ASSERT_TRUE(QDir().mkpath(demoDir()));
    const QString database = demoDir() + QStringLiteral("/history.sqlite");
    {
        QSqlDatabase other =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("another-program"));
        other.setDatabaseName(database);
        ASSERT_TRUE(other.open());
        ASSERT_TRUE(QSqlQuery(other).exec(QStringLiteral("CREATE TABLE notes(text)")));
        other.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("another-program"));
    const QByteArray before = opsdeck::test::readFile(database);
    const auto up = runCli({QStringLiteral("demo"), QStringLiteral("up"), QStringLiteral("--dir"),
                            demoDir(), QStringLiteral("--traffic"), QStringLiteral("0")},
                           home(), std::chrono::seconds(90));
    EXPECT_EQ(up.exitCode, 1) << up.standardError.toStdString();
    EXPECT_TRUE(up.standardError.contains("the recorder exited at once"))
        << up.standardError.toStdString();
    EXPECT_TRUE(up.standardError.contains("recorder.log")) << "names the log it quotes";
    EXPECT_EQ(opsdeck::test::readFile(database), before);
    EXPECT_TRUE(pidsIn(demoDir()).isEmpty()) << "what it started is stopped";
}

// A file of the person's at the name of a service's identity
// (`run/proxy.pid.identity`) once had `demo up` write its identity over it,
// and a failed up remove it: now the up fails before starting that service,
// naming the file, which stays.
TEST_F(CliDemo, AnUpNeverWritesOverNorRemovesAFileOfThePersonsAtAnIdentitysName)
{
    ASSERT_TRUE(QDir().mkpath(demoDir() + QStringLiteral("/run")));
    const QString notes = demoDir() + QStringLiteral("/run/proxy.pid.identity");
    ASSERT_TRUE(opsdeck::test::writeFile(notes, "my notes\n"));
    const auto up = runCli({QStringLiteral("demo"), QStringLiteral("up"), QStringLiteral("--dir"),
                            demoDir(), QStringLiteral("--traffic"), QStringLiteral("0")},
                           home(), std::chrono::seconds(90));
    EXPECT_EQ(up.exitCode, 1) << up.standardError.toStdString();
    EXPECT_TRUE(up.standardError.contains(
        QByteArray(QFile::encodeName(notes) + " is not an identity OpsDeck wrote")))
        << up.standardError.toStdString();
    EXPECT_EQ(opsdeck::test::readFile(notes), "my notes\n");
    EXPECT_TRUE(pidsIn(demoDir()).isEmpty()) << "what it started is stopped";
}

// A file of the person's named demo.lock (its first line a number that is
// no running pid) was taken for a stale lock and removed by up and down:
// in a folder that is not a demo's it is refused, naming it, and kept.
TEST_F(CliDemo, AFileOfThePersonsNamedDemoLockIsNeverRemoved)
{
    ASSERT_TRUE(QDir().mkpath(demoDir()));
    const QString notes = demoDir() + QStringLiteral("/demo.lock");
    ASSERT_TRUE(opsdeck::test::writeFile(notes, "99999\nmy notes about the demo lock\n"));
    for (const char *action : {"down", "up"}) {
        const auto run = runCli({QStringLiteral("demo"), QString::fromLatin1(action),
                                 QStringLiteral("--dir"), demoDir()},
                                home(), std::chrono::seconds(60));
        EXPECT_NE(run.exitCode, 0) << action;
        EXPECT_TRUE(run.standardError.contains("is not a demo's lock"))
            << action << ": " << run.standardError.toStdString();
        EXPECT_EQ(opsdeck::test::readFile(notes), "99999\nmy notes about the demo lock\n")
            << action;
    }
}

// One up or down at a time per folder: a second one started meanwhile fails at
// once instead of overwriting pid files and orphaning the first one's processes.
TEST_F(CliDemo, ASecondUpOnTheSameFolderIsRefusedWhileTheFirstRuns)
{
    QProcess first;
    opsdeck::test::startCli(first,
                            {QStringLiteral("demo"), QStringLiteral("up"), QStringLiteral("--dir"),
                             demoDir(), QStringLiteral("--traffic"), QStringLiteral("0")},
                            home());
    ASSERT_TRUE(opsdeck::test::waitUntil(
        [&] { return QFile::exists(demoDir() + QStringLiteral("/demo.lock")); },
        std::chrono::seconds(30)));
    const auto second =
        runCli({QStringLiteral("demo"), QStringLiteral("up"), QStringLiteral("--dir"), demoDir(),
                QStringLiteral("--traffic"), QStringLiteral("0")},
               home(), std::chrono::seconds(90));
    EXPECT_EQ(second.exitCode, 1);
    EXPECT_TRUE(second.standardError.contains("another demo up or down is running on"))
        << second.standardError.toStdString();
    ASSERT_TRUE(first.waitForFinished(90000));
    EXPECT_EQ(first.exitCode(), 0) << first.readAllStandardError().toStdString();
    const auto pids = pidsIn(demoDir());
    ASSERT_EQ(pids.size(), 4);
    downLeavesNothing(pids);
}

// A console killed (SIGKILL, or ^C) just after the first service started:
// that service's identity is written all the same, so demo down stops it.
TEST_F(CliDemo, AnUpKilledAfterItsFirstStartLeavesNothingDownCannotStop)
{
    QProcess up;
    opsdeck::test::startCli(up,
                            {QStringLiteral("demo"), QStringLiteral("up"), QStringLiteral("--dir"),
                             demoDir(), QStringLiteral("--traffic"), QStringLiteral("0")},
                            home());
    ASSERT_TRUE(opsdeck::test::waitUntil([&] { return !pidsIn(demoDir()).isEmpty(); },
                                         std::chrono::seconds(30)));
    ::kill(pid_t(up.processId()), SIGKILL);
    ASSERT_TRUE(up.waitForFinished(5000));
    const auto pids = pidsIn(demoDir());
    ASSERT_FALSE(pids.isEmpty());
    for (auto it = pids.cbegin(); it != pids.cend(); ++it) {
        const QString identity = demoDir() + QStringLiteral("/run/%1.pid.identity").arg(it.key());
        EXPECT_TRUE(opsdeck::test::waitUntil([&] { return QFile::exists(identity); },
                                             std::chrono::seconds(5)))
            << it.key().toStdString() << " started without an identity";
    }
    downLeavesNothing(pids);
}

// Without its inventory the demo's services cannot be stopped: down and up
// say so and change nothing, instead of "nothing to stop" and orphans.
TEST_F(CliDemo, AMissingInventoryWithPidFilesIsAnErrorNotNothingToStop)
{
    const QStringList upArgs{QStringLiteral("demo"),      QStringLiteral("up"),
                             QStringLiteral("--dir"),     demoDir(),
                             QStringLiteral("--traffic"), QStringLiteral("0")};
    const auto up = runCli(upArgs, home(), std::chrono::seconds(90));
    ASSERT_EQ(up.exitCode, 0) << up.standardError.toStdString();
    const auto pids = pidsIn(demoDir());
    ASSERT_EQ(pids.size(), 4);
    const QString inventory = demoDir() + QStringLiteral("/inventory.yaml");
    ASSERT_TRUE(QFile::rename(inventory, inventory + QStringLiteral(".moved")));
    const QStringList downArgs{QStringLiteral("demo"), QStringLiteral("down"),
                               QStringLiteral("--dir"), demoDir()};
    auto down = runCli(downArgs, home(), std::chrono::seconds(60));
    EXPECT_EQ(down.exitCode, 1);
    EXPECT_TRUE(down.standardError.contains("put the inventory back"))
        << down.standardError.toStdString();
    const auto again = runCli(upArgs, home(), std::chrono::seconds(90));
    EXPECT_EQ(again.exitCode, 1);
    for (auto it = pids.cbegin(); it != pids.cend(); ++it)
        EXPECT_TRUE(processAlive(it.value())) << it.key().toStdString();
    EXPECT_EQ(pidsIn(demoDir()), pids) << "no pid file overwritten";
    // Replaced by one that names none of them: the same.
    ASSERT_TRUE(opsdeck::test::writeFile(inventory, "hosts: []\n"));
    down = runCli(downArgs, home(), std::chrono::seconds(60));
    EXPECT_EQ(down.exitCode, 1);
    EXPECT_TRUE(down.standardError.contains("put the demo's inventory back"))
        << down.standardError.toStdString();
    for (auto it = pids.cbegin(); it != pids.cend(); ++it)
        EXPECT_TRUE(processAlive(it.value())) << it.key().toStdString();
    ASSERT_TRUE(QFile::remove(inventory));
    ASSERT_TRUE(QFile::rename(inventory + QStringLiteral(".moved"), inventory));
    down = runCli(downArgs, home(), std::chrono::seconds(60));
    EXPECT_EQ(down.exitCode, 0) << down.standardError.toStdString();
    for (auto it = pids.cbegin(); it != pids.cend(); ++it)
        EXPECT_FALSE(processAlive(it.value())) << it.key().toStdString();
}

// The demo's decode runs with SGLANG_SM120_MMA_TARGET_CTAS=512. Edited in its
// serve script, the knob drifts until decode restarts with the new value.
TEST_F(CliDemo, AnEditedKnobDriftsUntilTheServiceRestarts)
{
    const auto up = runCli({QStringLiteral("demo"), QStringLiteral("up"), QStringLiteral("--dir"),
                            demoDir(), QStringLiteral("--traffic"), QStringLiteral("0")},
                           home(), std::chrono::seconds(90));
    ASSERT_EQ(up.exitCode, 0) << up.standardError.toStdString();
    const QString inventory = up.lastLine();
    const QStringList drift{QStringLiteral("knobs"),       QStringLiteral("drift"),
                            QStringLiteral("--inventory"), inventory,
                            QStringLiteral("--service"),   QStringLiteral("decode"),
                            QStringLiteral("--json")};
    auto run = runCli(drift, home());
    ASSERT_EQ(run.exitCode, 0) << run.standardOutput.toStdString()
                               << run.standardError.toStdString();
    EXPECT_TRUE(run.json().object().value(QStringLiteral("in_sync")).toBool());

    const QString script = demoDir() + QStringLiteral("/serve_decode.sh");
    run = runCli({QStringLiteral("knobs"), QStringLiteral("set"), script,
                  QStringLiteral("SGLANG_SM120_MMA_TARGET_CTAS"), QStringLiteral("256"),
                  QStringLiteral("--data-dir"), demoDir()},
                 home());
    ASSERT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    // What changed in the last half hour: decode's knob, against the backup the edit made.
    run = runCli({QStringLiteral("changed-since"), QStringLiteral("--inventory"), inventory,
                  QStringLiteral("--host"), QStringLiteral("local"), QStringLiteral("--since"),
                  QStringLiteral("30m"), QStringLiteral("--json")},
                 home());
    ASSERT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    bool decodeSaid = false;
    for (const QJsonValue &service :
         run.json().object().value(QStringLiteral("services")).toArray()) {
        if (service.toObject().value(QStringLiteral("service")).toString() != u"decode")
            continue;
        decodeSaid = true;
        const QJsonArray changes = service.toObject().value(QStringLiteral("changes")).toArray();
        ASSERT_EQ(changes.size(), 1) << run.standardOutput.toStdString();
        EXPECT_EQ(changes.at(0).toObject().value(QStringLiteral("before")).toString(),
                  QStringLiteral("512"));
        EXPECT_EQ(changes.at(0).toObject().value(QStringLiteral("after")).toString(),
                  QStringLiteral("256"));
    }
    EXPECT_TRUE(decodeSaid) << run.standardOutput.toStdString();

    run = runCli(drift, home());
    EXPECT_EQ(run.exitCode, 1) << run.standardOutput.toStdString();
    bool said = false;
    for (const QJsonValue &item : run.json().object().value(QStringLiteral("knobs")).toArray()) {
        const QJsonObject knob = item.toObject();
        if (knob.value(QStringLiteral("name")).toString() != u"SGLANG_SM120_MMA_TARGET_CTAS")
            continue;
        said = true;
        EXPECT_EQ(knob.value(QStringLiteral("state")).toString(), QStringLiteral("differs"));
        EXPECT_EQ(knob.value(QStringLiteral("says")).toString(),
                  QStringLiteral("script says 256, process runs with 512 — restart needed to "
                                 "take effect"));
    }
    EXPECT_TRUE(said) << run.standardOutput.toStdString();

    // Restart decode as its start command does.
    const QString pidFile = demoDir() + QStringLiteral("/run/decode.pid");
    const qint64 old = QString::fromLatin1(opsdeck::test::readFile(pidFile)).trimmed().toLongLong();
    ASSERT_GT(old, 1);
    ::kill(pid_t(old), SIGTERM);
    ASSERT_TRUE(
        opsdeck::test::waitUntil([&] { return !processAlive(old); }, std::chrono::seconds(15)));
    QProcess::execute(QStringLiteral("bash"),
                      {QStringLiteral("-c"),
                       QStringLiteral("setsid bash '%1' </dev/null >>'%2/logs/decode.log' 2>&1 & "
                                      "echo $! >'%3'")
                           .arg(script, demoDir(), pidFile)});
    const qint64 restarted =
        QString::fromLatin1(opsdeck::test::readFile(pidFile)).trimmed().toLongLong();
    ASSERT_GT(restarted, 1);
    // Once bash has exec'd the server, the process runs with what the script says.
    EXPECT_TRUE(opsdeck::test::waitUntil([&] { return runCli(drift, home()).exitCode == 0; },
                                         std::chrono::seconds(30)))
        << runCli(drift, home()).standardOutput.toStdString();
    ::kill(pid_t(restarted), SIGKILL);
    // Started by hand, without an identity: the demo's down leaves it to us.
    QFile::remove(pidFile);
    QFile::remove(pidFile + QStringLiteral(".identity"));
}

// An inventory copied from another demo's folder names that demo's pid
// files: `demo down` in the copy's folder stops nothing and says whose they
// are; the other demo keeps running.
TEST_F(CliDemo, DownInAFolderHoldingAnotherDemosInventoryStopsNothing)
{
    const auto up = runCli({QStringLiteral("demo"), QStringLiteral("up"), QStringLiteral("--dir"),
                            demoDir(), QStringLiteral("--traffic"), QStringLiteral("0")},
                           home(), std::chrono::seconds(90));
    ASSERT_EQ(up.exitCode, 0) << up.standardError.toStdString();
    const auto pids = pidsIn(demoDir());
    ASSERT_FALSE(pids.isEmpty());
    const QString copy = home() + QStringLiteral("/copy");
    ASSERT_TRUE(QDir().mkpath(copy));
    QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    ASSERT_TRUE(QFile::copy(demoDir() + QStringLiteral("/inventory.yaml"),
                            copy + QStringLiteral("/inventory.yaml")));

    const auto down = runCli(
        {QStringLiteral("demo"), QStringLiteral("down"), QStringLiteral("--dir"), copy}, home());
    EXPECT_NE(down.exitCode, 0);
    EXPECT_TRUE(down.standardError.contains(
        QStringLiteral("names pid files outside %1/run").arg(copy).toUtf8()))
        << down.standardError.toStdString();
    EXPECT_TRUE(down.standardError.contains("nothing stopped")) << down.standardError.toStdString();
    for (auto it = pids.cbegin(); it != pids.cend(); ++it)
        EXPECT_TRUE(processAlive(it.value())) << it.key().toStdString() << " was stopped";

    // The folder copied whole, its inventory rewritten to name the copy's own
    // files: the pid files and identities it brought name the original's
    // processes, which stay.
    const QString whole = home() + QStringLiteral("/whole");
    // Copied while the demo runs: a file that vanishes mid-copy (the
    // recorder's temporary identity) makes cp fail; copied again.
    ASSERT_TRUE(opsdeck::test::waitUntil(
        [&] {
            QDir(whole).removeRecursively();
            return QProcess::execute(QStringLiteral("cp"),
                                     {QStringLiteral("-a"), demoDir(), whole}) == 0;
        },
        std::chrono::seconds(20)));
    const QString inventory = whole + QStringLiteral("/inventory.yaml");
    ASSERT_TRUE(opsdeck::test::writeFile(
        inventory, opsdeck::test::readFile(inventory).replace(QFile::encodeName(demoDir()),
                                                              QFile::encodeName(whole))));
    const auto downCopy = runCli(
        {QStringLiteral("demo"), QStringLiteral("down"), QStringLiteral("--dir"), whole}, home());
    EXPECT_NE(downCopy.exitCode, 0);
    EXPECT_TRUE(downCopy.standardError.contains(
        QStringLiteral("was written for %1/run/").arg(demoDir()).toUtf8()))
        << downCopy.standardError.toStdString();
    for (auto it = pids.cbegin(); it != pids.cend(); ++it)
        EXPECT_TRUE(processAlive(it.value())) << it.key().toStdString() << " was stopped";
    downLeavesNothing(pids);
}

// `demo down --dir demo` from the folder above stops what `demo up --dir
// /abs/demo` started: the traffic generator's identity names its pid file
// by absolute path, so a relative one once read as "not running".
TEST_F(CliDemo, DownWithARelativeFolderStopsEveryProcessUpStarted)
{
    const auto pids = upWithTraffic(QStringLiteral("1"));
    ASSERT_EQ(pids.size(), 5);
    QProcess down;
    down.setWorkingDirectory(home());
    opsdeck::test::startCli(down,
                            {QStringLiteral("demo"), QStringLiteral("down"),
                             QStringLiteral("--dir"), QStringLiteral("demo")},
                            home());
    ASSERT_TRUE(down.waitForFinished(60'000));
    const QString said =
        QString::fromUtf8(down.readAllStandardOutput() + down.readAllStandardError());
    EXPECT_EQ(down.exitCode(), 0) << said.toStdString();
    EXPECT_FALSE(said.contains(QStringLiteral("traffic was not running"))) << said.toStdString();
    expectRunning(pids, false);
}

// A workflow on the demo restarts services as it goes: `demo down` while it
// holds the cluster lock would report every process exited and then see the
// workflow start one again. Refused naming the workflow; a lock past its
// expiry (a killed run) does not stand in the way; --force stops anyway.
TEST_F(CliDemo, DownWhileAWorkflowHoldsTheClusterLockIsRefusedNamingIt)
{
    const auto pids = upWithTraffic(QStringLiteral("1"));
    ASSERT_EQ(pids.size(), 5);
    const QString id = QStringLiteral("20261204T101500Z-co-restart-1a2b");
    const auto writeLock = [&](const QDateTime &expires) {
        QFile lock(demoDir() + QStringLiteral("/.opsdeck-lock-demo"));
        ASSERT_TRUE(lock.open(QIODevice::WriteOnly | QIODevice::Truncate));
        const QDateTime now = QDateTime::currentDateTimeUtc();
        lock.write(QStringLiteral("owner=alice\nhost=laptop-3\ntime=%1\nexpires=%2\nworkflow=%3\n")
                       .arg(now.toString(Qt::ISODate), expires.toString(Qt::ISODate), id)
                       .toUtf8());
    };
    writeLock(QDateTime::currentDateTimeUtc().addSecs(3600));
    const QStringList down{QStringLiteral("demo"), QStringLiteral("down"), QStringLiteral("--dir"),
                           demoDir()};
    const auto refused = runCli(down, home());
    EXPECT_EQ(refused.exitCode, 1);
    EXPECT_TRUE(refused.standardError.contains(id.toUtf8()) &&
                refused.standardError.contains("alice on laptop-3"))
        << refused.standardError.toStdString();
    const auto replace = runCli(
        {QStringLiteral("demo"), QStringLiteral("up"), QStringLiteral("--dir"), demoDir()}, home());
    EXPECT_EQ(replace.exitCode, 1) << replace.standardError.toStdString();
    expectRunning(pids, true);

    // A lock whose run was killed an hour ago is past its expiry.
    writeLock(QDateTime::currentDateTimeUtc().addSecs(-60));
    const auto stale = runCli(down, home(), std::chrono::seconds(60));
    EXPECT_EQ(stale.exitCode, 0) << stale.standardError.toStdString();
    expectRunning(pids, false);

    const auto restarted = upWithTraffic(QStringLiteral("0"));
    ASSERT_EQ(restarted.size(), 4);
    writeLock(QDateTime::currentDateTimeUtc().addSecs(3600));
    const auto forced =
        runCli(down + QStringList{QStringLiteral("--force")}, home(), std::chrono::seconds(60));
    EXPECT_EQ(forced.exitCode, 0) << forced.standardError.toStdString();
    expectRunning(restarted, false);
    QFile::remove(demoDir() + QStringLiteral("/.opsdeck-lock-demo"));
}
