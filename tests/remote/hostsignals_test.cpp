// HostSignals against real processes: opsdeck-sim servers started with pid
// files as the demo writes them (models/demo/democluster.cpp), polled
// through LocalTransport and through a real sshd. This machine has no
// nvidia-smi, which is the "no nvidia-smi" case; the GPU path is driven end to
// end by a fake `nvidia-smi` script put first on PATH through the poll's
// CommandRequest::environment, printing a recorded output (tests/data/nvidia-smi).
#include "fakenvidiasmi.h"
#include "hostsignals.h"
#include "localtransport.h"
#include "nvidiasmicsv.h"
#include "simprocess.h"
#include "sshfixture.h"
#include "sshtransport.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <gtest/gtest.h>
#include <memory>
#include <sys/stat.h>

using namespace std::chrono_literals;
using opsdeck::remote::HostSignals;
using opsdeck::remote::HostSignalsSample;
using opsdeck::remote::ProcessSample;
using opsdeck::remote::ServiceProcesses;
using opsdeck::remote::ServiceProcessQuery;
using opsdeck::test::fakeNvidiaSmi;
using opsdeck::test::freeTcpPort;
using opsdeck::test::pathFirst;
using opsdeck::test::SimProcess;
using opsdeck::test::waitUntil;

namespace {

QStringList simOnPort(const QString &role, int port)
{
    return {QStringLiteral("--role"),        role,
            QStringLiteral("--port"),        QString::number(port),
            QStringLiteral("--ready-delay"), QStringLiteral("0")};
}

void writePidFile(const QString &path, qint64 pid)
{
    ASSERT_TRUE(opsdeck::test::writeFile(path, QByteArray::number(pid) + '\n'))
        << path.toStdString();
}

// A pid that was real a moment ago and is gone now.
qint64 deadPid()
{
    QProcess process;
    process.start(QStringLiteral("true"), {});
    if (!process.waitForStarted(5000))
        return 0;
    const qint64 pid = process.processId();
    process.waitForFinished(5000);
    return pid;
}

// Polls once and waits for the sample.
HostSignalsSample pollOnce(HostSignals &hostSignals, std::chrono::milliseconds deadline = 20s)
{
    bool done = false;
    HostSignalsSample sample;
    QObject context;
    QObject::connect(&hostSignals, &HostSignals::sampled, &context,
                     [&](const HostSignalsSample &s) {
                         sample = s;
                         done = true;
                     });
    EXPECT_TRUE(hostSignals.pollNow());
    EXPECT_FALSE(hostSignals.pollNow()) << "a second poll must not start while one runs";
    EXPECT_TRUE(waitUntil([&] { return done; }, deadline));
    return sample;
}

// The services of the tests: decode (a sim with its pid file) and router
// (its pid file names a dead pid; another sim still holds its --port).
struct Services
{
    QTemporaryDir dir;
    SimProcess decode;
    SimProcess oldRouter;
    int decodePort = 0;
    int routerPort = 0;
    qint64 deadRouterPid = 0;
    QDateTime startedAround;

    void start()
    {
        decodePort = freeTcpPort();
        routerPort = freeTcpPort();
        startedAround = QDateTime::currentDateTimeUtc();
        ASSERT_TRUE(decode.start(simOnPort(QStringLiteral("decode"), decodePort)))
            << decode.errorText().toStdString();
        ASSERT_TRUE(oldRouter.start(simOnPort(QStringLiteral("engine"), routerPort)))
            << oldRouter.errorText().toStdString();
        writePidFile(dir.filePath(QStringLiteral("decode.pid")), decode.pid());
        deadRouterPid = deadPid();
        ASSERT_GT(deadRouterPid, 0);
        writePidFile(dir.filePath(QStringLiteral("router.pid")), deadRouterPid);
    }
    QVector<ServiceProcessQuery> queries() const
    {
        return {{QStringLiteral("decode"), dir.filePath(QStringLiteral("decode.pid")), decodePort},
                {QStringLiteral("router"), dir.filePath(QStringLiteral("router.pid")), routerPort},
                {QStringLiteral("proxy"), dir.filePath(QStringLiteral("proxy.pid")), 0}};
    }
};

void expectServices(const HostSignalsSample &sample, const Services &services)
{
    ASSERT_EQ(sample.services.size(), 3);
    const ServiceProcesses &decode = sample.services.at(0);
    EXPECT_EQ(decode.pidFileState, ServiceProcesses::PidFileState::Running);
    const ProcessSample *main = decode.mainProcess();
    ASSERT_NE(main, nullptr);
    EXPECT_EQ(main->pid, services.decode.pid());
    // Started by this test a moment ago: /proc start time, whole seconds.
    EXPECT_LE(std::abs(main->startedAt.secsTo(services.startedAround)), 5)
        << main->startedAt.toString(Qt::ISODate).toStdString() << " vs "
        << services.startedAround.toString(Qt::ISODate).toStdString();
    EXPECT_LT(main->uptimeSeconds, 120);
    EXPECT_GT(main->rssBytes, 1024 * 1024); // a real server holds more than 1 MiB
    EXPECT_TRUE(main->args.contains(QStringLiteral("--port %1").arg(services.decodePort)))
        << main->args.toStdString();
    EXPECT_TRUE(decode.notes().isEmpty()) << decode.notes().join(u"; ").toStdString();

    const ServiceProcesses &router = sample.services.at(1);
    EXPECT_EQ(router.pidFileState, ServiceProcesses::PidFileState::NotRunning);
    EXPECT_EQ(router.pidFromFile, services.deadRouterPid);
    ASSERT_EQ(router.oldInstances().size(), 1);
    EXPECT_EQ(router.oldInstances().first().pid, services.oldRouter.pid());
    const QStringList notes = router.notes();
    EXPECT_TRUE(notes.contains(QStringLiteral("pid file %1 says %2 but it is not running")
                                   .arg(router.query.pidFile)
                                   .arg(services.deadRouterPid)))
        << notes.join(u"; ").toStdString();
    EXPECT_TRUE(notes.contains(QStringLiteral("old process %1 still running (same --port %2, not "
                                              "the pid file's process)")
                                   .arg(services.oldRouter.pid())
                                   .arg(services.routerPort)))
        << notes.join(u"; ").toStdString();

    EXPECT_EQ(sample.services.at(2).pidFileState, ServiceProcesses::PidFileState::Missing);
}

} // namespace

TEST(HostSignals, LocalProcessesAndNoNvidiaSmi)
{
    ASSERT_TRUE(QStandardPaths::findExecutable(QStringLiteral("nvidia-smi")).isEmpty())
        << "this test needs a machine without nvidia-smi";
    Services services;
    ASSERT_NO_FATAL_FAILURE(services.start());
    opsdeck::remote::LocalTransport transport(QStringLiteral("gpu-3"));
    HostSignals hostSignals(&transport, services.queries());
    const HostSignalsSample sample = pollOnce(hostSignals);
    ASSERT_TRUE(sample.ok()) << sample.error.toStdString();
    EXPECT_EQ(sample.host, QStringLiteral("gpu-3"));
    EXPECT_EQ(sample.gpuState, HostSignalsSample::GpuState::NoNvidiaSmi);
    EXPECT_EQ(sample.gpuStatusText(),
              QStringLiteral("No nvidia-smi on host gpu-3 \u2014 GPU signals unavailable"));
    EXPECT_LE(std::abs(sample.sampledAt.secsTo(QDateTime::currentDateTimeUtc())), 5);
    expectServices(sample, services);
}

TEST(HostSignals, RecordedNvidiaSmiOutputThroughFakeOnPath)
{
    QTemporaryDir dir;
    const QString fields =
        QStringLiteral("index,name,memory.used,memory.total,utilization.gpu,temperature.gpu");
    opsdeck::remote::LocalTransport transport(QStringLiteral("gpu-1"));
    HostSignals hostSignals(&transport, {});
    hostSignals.setGpuFields(fields.split(QLatin1Char(',')));
    hostSignals.setEnvironment(pathFirst(
        fakeNvidiaSmi(dir, fields, QStringLiteral("nvidia-smi/05-rtx3060-rtx5060ti-aligned.csv"))));
    const HostSignalsSample sample = pollOnce(hostSignals);
    ASSERT_TRUE(sample.ok()) << sample.error.toStdString();
    ASSERT_EQ(sample.gpuState, HostSignalsSample::GpuState::Available)
        << sample.gpuError.toStdString();
    ASSERT_EQ(sample.gpus.size(), 2);
    EXPECT_EQ(sample.gpus.at(1).name, QStringLiteral("NVIDIA GeForce RTX 5060 Ti"));
    EXPECT_EQ(sample.gpus.at(1).memoryUsedMiB, 15868.0);
    EXPECT_EQ(sample.gpus.at(1).utilizationPercent, 100.0);
    EXPECT_TRUE(sample.gpuStatusText().isEmpty());
}

TEST(HostSignals, DriverFailureAndHungNvidiaSmiAreReported)
{
    QTemporaryDir dir;
    const QString fields = opsdeck::remote::NvidiaSmiCsv::defaultFields().join(QLatin1Char(','));
    opsdeck::remote::LocalTransport transport(QStringLiteral("gpu-2"));
    HostSignals hostSignals(&transport, {});
    // nvidia-smi exits 9 with this message when the driver is not loaded.
    hostSignals.setEnvironment(pathFirst(
        fakeNvidiaSmi(dir, fields, QStringLiteral("nvidia-smi/06-driver-failure.txt"), 9)));
    HostSignalsSample sample = pollOnce(hostSignals);
    ASSERT_TRUE(sample.ok()) << sample.error.toStdString();
    EXPECT_EQ(sample.gpuState, HostSignalsSample::GpuState::Failed);
    EXPECT_TRUE(sample.gpuError.startsWith(QStringLiteral(
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver")))
        << sample.gpuError.toStdString();
    EXPECT_TRUE(
        sample.gpuStatusText().startsWith(QStringLiteral("nvidia-smi failed on host gpu-2: ")));

    // A hung driver: nvidia-smi gets half the poll's deadline, then `timeout` kills it.
    QTemporaryDir hungDir;
    const QString bin = hungDir.filePath(QStringLiteral("fakebin"));
    QDir().mkpath(bin);
    ASSERT_TRUE(opsdeck::test::writeFile(
        bin + QStringLiteral("/nvidia-smi"),
        "#!/bin/sh\n# Fake nvidia-smi that never answers.\nexec sleep 60\n"));
    QFile::setPermissions(bin + QStringLiteral("/nvidia-smi"),
                          QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    hostSignals.setEnvironment(pathFirst(bin));
    hostSignals.setDeadline(4s);
    sample = pollOnce(hostSignals);
    ASSERT_TRUE(sample.ok()) << sample.error.toStdString();
    EXPECT_EQ(sample.gpuState, HostSignalsSample::GpuState::Failed);
    EXPECT_EQ(sample.gpuError, QStringLiteral("nvidia-smi did not answer within 2 s"));
}

TEST(HostSignals, ThroughRealSshd)
{
    opsdeck::test::SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    Services services;
    ASSERT_NO_FATAL_FAILURE(services.start());
    opsdeck::remote::SshTransport transport(QStringLiteral("gpu-ssh"),
                                            opsdeck::test::sshSettings(sshd));
    HostSignals hostSignals(&transport, services.queries());
    const HostSignalsSample sample = pollOnce(hostSignals, 30s);
    ASSERT_TRUE(sample.ok()) << sample.error.toStdString();
    EXPECT_EQ(sample.gpuState, HostSignalsSample::GpuState::NoNvidiaSmi);
    expectServices(sample, services);
}

TEST(HostSignals, PollsEveryIntervalUntilStopped)
{
    opsdeck::remote::LocalTransport transport(QStringLiteral("local"));
    HostSignals hostSignals(&transport, {});
    hostSignals.setInterval(100ms);
    int samples = 0;
    QObject::connect(&hostSignals, &HostSignals::sampled, &hostSignals,
                     [&](const HostSignalsSample &) { ++samples; });
    hostSignals.start();
    EXPECT_TRUE(waitUntil([&] { return samples >= 3; }, 20s));
    hostSignals.stop();
    const int stoppedAt = samples;
    // Only a poll already running may still report after stop().
    waitUntil([] { return false; }, 500ms);
    EXPECT_LE(samples, stoppedAt + 1);
    EXPECT_TRUE(hostSignals.latest().ok()) << hostSignals.latest().error.toStdString();
}

// The inventory keeps `~/...` pid files for the host's shell: $HOME there.
TEST(HostSignals, PidFileUnderHomeIsExpandedOnTheHost)
{
    QTemporaryDir home;
    SimProcess engine;
    const int port = freeTcpPort();
    ASSERT_TRUE(engine.start(simOnPort(QStringLiteral("engine"), port)))
        << engine.errorText().toStdString();
    QDir(home.path()).mkpath(QStringLiteral("run it"));
    writePidFile(home.filePath(QStringLiteral("run it/engine.pid")), engine.pid());
    opsdeck::remote::LocalTransport transport(QStringLiteral("local"));
    HostSignals hostSignals(
        &transport, {{QStringLiteral("engine"), QStringLiteral("~/run it/engine.pid"), port}});
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("HOME"), home.path());
    hostSignals.setEnvironment(environment);
    const HostSignalsSample sample = pollOnce(hostSignals);
    ASSERT_TRUE(sample.ok()) << sample.error.toStdString();
    ASSERT_EQ(sample.services.size(), 1);
    EXPECT_EQ(sample.services.first().pidFileState, ServiceProcesses::PidFileState::Running);
    ASSERT_NE(sample.services.first().mainProcess(), nullptr);
    EXPECT_EQ(sample.services.first().mainProcess()->pid, engine.pid());
}

// Pid files an inventory or a host can get wrong: a FIFO (whose read would
// block the host's queue until the deadline), a directory, a huge line, and
// a path with `$(...)`, which must never run on the host.
TEST(HostSignals, HostilePidFilesAreReportedAndNeverRunOrBlock)
{
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("engine.fifo"));
    ASSERT_EQ(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    ASSERT_TRUE(QDir(dir.path()).mkdir(QStringLiteral("engine.dir")));
    const QString huge = dir.filePath(QStringLiteral("huge.pid"));
    ASSERT_TRUE(opsdeck::test::writeFile(huge, QByteArray(4 * 1024 * 1024, '7')));
    const QString marker = dir.filePath(QStringLiteral("ran"));
    opsdeck::remote::LocalTransport transport(QStringLiteral("local"));
    HostSignals hostSignals(
        &transport,
        {{QStringLiteral("fifo"), fifo, 0},
         {QStringLiteral("dir"), dir.filePath(QStringLiteral("engine.dir")), 0},
         {QStringLiteral("huge"), huge, 0},
         {QStringLiteral("subst"), QStringLiteral("$(touch '%1')").arg(marker), 0},
         {QStringLiteral("subst2"), QStringLiteral("$HOME$(touch '%1')").arg(marker), 0}});
    // Well under pollOnce's 20 s: a FIFO read would hold the poll until it.
    hostSignals.setDeadline(8s);
    const HostSignalsSample sample = pollOnce(hostSignals);
    ASSERT_TRUE(sample.ok()) << sample.error.toStdString();
    ASSERT_EQ(sample.services.size(), 5);
    using State = ServiceProcesses::PidFileState;
    EXPECT_EQ(sample.services.at(0).pidFileState, State::Invalid);
    EXPECT_EQ(sample.services.at(0).pidFileText, QStringLiteral("(not a regular file)"));
    EXPECT_EQ(sample.services.at(1).pidFileState, State::Invalid);
    // Only the start of the line is read (64 bytes), and it names no process.
    EXPECT_EQ(sample.services.at(2).pidFileState, State::NotRunning);
    EXPECT_EQ(sample.services.at(3).pidFileState, State::Missing);
    EXPECT_EQ(sample.services.at(4).pidFileState, State::Missing);
    EXPECT_FALSE(QFile::exists(marker)) << "a pid file path ran a command on the host";
}

// A runaway nvidia-smi (10 MB, never a CSV line): its output is cut on the
// host, so the records after it (the services' pid files and processes) are
// not lost past the poll's 1 MiB output cap, and the GPU state says it failed.
TEST(HostSignals, AFloodingNvidiaSmiKeepsTheServiceRecords)
{
    QTemporaryDir dir;
    const QString bin = dir.filePath(QStringLiteral("fakebin"));
    QDir().mkpath(bin);
    ASSERT_TRUE(opsdeck::test::writeFile(bin + QStringLiteral("/nvidia-smi"),
                                         "#!/bin/sh\n# Fake nvidia-smi that floods its output.\n"
                                         "yes 'not,a,csv,line' | head -c 10000000\n"));
    QFile::setPermissions(bin + QStringLiteral("/nvidia-smi"),
                          QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    opsdeck::remote::LocalTransport transport(QStringLiteral("gpu-4"));
    HostSignals hostSignals(
        &transport, {{QStringLiteral("decode"), dir.filePath(QStringLiteral("missing.pid")), 0}});
    hostSignals.setEnvironment(pathFirst(bin));
    const HostSignalsSample sample = pollOnce(hostSignals);
    ASSERT_TRUE(sample.ok()) << sample.error.toStdString();
    EXPECT_EQ(sample.gpuState, HostSignalsSample::GpuState::Failed);
    EXPECT_LE(sample.gpuError.size(), 4096) << "the flood reached the GPU error text";
    ASSERT_EQ(sample.services.size(), 1);
    EXPECT_EQ(sample.services.first().pidFileState, ServiceProcesses::PidFileState::Missing);
}
