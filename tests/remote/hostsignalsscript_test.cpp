// HostSignalsScript::parse on the script's record format: start times from
// boot time and ticks, RSS from KiB, and how port matches are classified.
#include "hostsignalsscript.h"
#include "nvidiasmicsv.h"

#include <gtest/gtest.h>

using opsdeck::remote::HostSignalsSample;
using opsdeck::remote::HostSignalsScript;
using opsdeck::remote::NvidiaSmiCsv;
using opsdeck::remote::ProcessSample;
using opsdeck::remote::ServiceProcesses;
using opsdeck::remote::ServiceProcessQuery;

namespace {

const QVector<ServiceProcessQuery> queries{
    {QStringLiteral("decode"), QStringLiteral("/run/decode.pid"), 30001},
    {QStringLiteral("prefill"), QStringLiteral("/run/prefill.pid"), 30000}};

HostSignalsSample parse(const QByteArray &output)
{
    return HostSignalsScript::parse(output, QStringLiteral("gpu-3"), queries,
                                    NvidiaSmiCsv::defaultFields(), 5);
}

} // namespace

TEST(HostSignalsScript, ProcessesClassifiedAgainstThePidFile)
{
    // boot at 1'800'000'000 s, CLK_TCK 100, now 7'380 s after boot.
    const QByteArray output =
        "@@clock\t1800007380\t1800000000\t100\n"
        "@@gpu\tnone\n"
        "@@service\t0\n"
        "@@pidfile\tpid\t100\n"
        "@@proc\tmain\t100\t1\tS\t18000\t2048\t\tsim --role decode --port 30001\n"
        "@@proc\tchild\t101\t100\tS\t18100\t1024\t100\tworker\n"
        "@@proc\tport\t200\t101\tS\t18200\t10\t101,100\tsim --port 30001\n"
        "@@proc\tport\t99\t1\tS\t500\t4096\t\tsim --role decode --port 30001\n"
        "@@service\t1\n"
        "@@pidfile\tpid\t123\n";
    const auto sample = parse(output);
    ASSERT_TRUE(sample.ok()) << sample.error.toStdString();
    EXPECT_EQ(sample.gpuState, HostSignalsSample::GpuState::NoNvidiaSmi);
    EXPECT_EQ(sample.gpuStatusText(),
              QStringLiteral("No nvidia-smi on host gpu-3 \u2014 GPU signals unavailable"));
    ASSERT_EQ(sample.services.size(), 2);

    const ServiceProcesses &decode = sample.services.at(0);
    EXPECT_EQ(decode.pidFileState, ServiceProcesses::PidFileState::Running);
    ASSERT_EQ(decode.processes.size(), 4);
    const ProcessSample *main = decode.mainProcess();
    ASSERT_NE(main, nullptr);
    EXPECT_EQ(main->pid, 100);
    // 18000 ticks / 100 = 180 s after boot.
    EXPECT_EQ(main->startedAt, QDateTime::fromSecsSinceEpoch(1800000180, Qt::UTC));
    EXPECT_EQ(main->uptimeSeconds, 7200);
    EXPECT_EQ(opsdeck::remote::describeUptime(main->uptimeSeconds), QStringLiteral("up 2 h 0 min"));
    EXPECT_EQ(main->rssBytes, 2048 * 1024);
    EXPECT_EQ(decode.processes.at(2).kind, ProcessSample::Kind::Child); // under 101 under 100
    EXPECT_EQ(decode.processes.at(3).kind, ProcessSample::Kind::OldInstance);
    EXPECT_EQ(decode.notes(),
              QStringList{QStringLiteral("old process 99 still running (same --port 30001, not "
                                         "the pid file's process)")});

    const ServiceProcesses &prefill = sample.services.at(1);
    EXPECT_EQ(prefill.pidFileState, ServiceProcesses::PidFileState::NotRunning);
    EXPECT_EQ(prefill.notes(), QStringList{QStringLiteral(
                                   "pid file /run/prefill.pid says 123 but it is not running")});
}

TEST(HostSignalsScript, ZombieAndInvalidPidFiles)
{
    const auto sample = parse("@@clock\t1800007380\t1800000000\t100\n"
                              "@@gpu\texit\t9\nNVIDIA-SMI has failed because it couldn't "
                              "communicate with the NVIDIA driver.\n@@gpu-end\n"
                              "@@service\t0\n@@pidfile\tpid\t100\n"
                              "@@proc\tmain\t100\t1\tZ\t18000\t\t\t\n"
                              "@@service\t1\n@@pidfile\tinvalid\tstarting\n");
    ASSERT_TRUE(sample.ok()) << sample.error.toStdString();
    EXPECT_EQ(sample.gpuState, HostSignalsSample::GpuState::Failed);
    EXPECT_EQ(sample.gpuError, QStringLiteral("NVIDIA-SMI has failed because it couldn't "
                                              "communicate with the NVIDIA driver. (exit 9)"));
    EXPECT_EQ(sample.services.at(0).pidFileState, ServiceProcesses::PidFileState::Zombie);
    EXPECT_EQ(sample.services.at(0).processes.first().rssBytes, -1);
    EXPECT_EQ(sample.services.at(1).notes(),
              QStringList{QStringLiteral("pid file /run/prefill.pid holds no pid: \"starting\"")});
}

TEST(HostSignalsScript, OutputWithoutClockIsAnError)
{
    const auto sample = parse("bash: mapfile: -d: invalid option\n");
    EXPECT_FALSE(sample.ok());
    EXPECT_TRUE(sample.error.contains(QStringLiteral("host gpu-3"))) << sample.error.toStdString();
}

TEST(HostSignalsScript, UptimeWording)
{
    using opsdeck::remote::describeUptime;
    EXPECT_EQ(describeUptime(45), QStringLiteral("up 45 s"));
    EXPECT_EQ(describeUptime(12 * 60 + 5), QStringLiteral("up 12 min"));
    EXPECT_EQ(describeUptime(2 * 3600 + 3 * 60), QStringLiteral("up 2 h 3 min"));
    EXPECT_EQ(describeUptime(3 * 86400 + 4 * 3600 + 59), QStringLiteral("up 3 d 4 h"));
}
