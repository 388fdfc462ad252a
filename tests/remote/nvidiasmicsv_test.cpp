// NvidiaSmiCsv on recorded outputs of `nvidia-smi --query-gpu=... --format=csv,noheader,nounits`
// (tests/data/nvidia-smi/SOURCES.md gives each file's origin and query fields).
#include "gputablemodel.h"
#include "nvidiasmicsv.h"
#include "testsupport.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <gtest/gtest.h>

using opsdeck::remote::NvidiaSmiCsv;
using opsdeck::test::readData;

namespace {

QStringList fields(const char *commaSeparated)
{
    return QString::fromLatin1(commaSeparated).split(QLatin1Char(','));
}

const QStringList i3pystatusFields = fields("memory.total,memory.free,memory.used,temperature.gpu,"
                                            "fan.speed,utilization.gpu,utilization.memory");

} // namespace

// Newer drivers print `[N/A]` for a fan the GPU lacks: absent, never 0; the
// real zeros beside it (0 MiB used, 0 %) stay zeros.
TEST(NvidiaSmiCsv, BracketedNotAvailableIsAbsentNotZero)
{
    const auto result = NvidiaSmiCsv::parse(
        readData(QStringLiteral("nvidia-smi/01-i3pystatus-pr776-na.csv")), i3pystatusFields);
    ASSERT_TRUE(result.ok()) << result.error.toStdString();
    ASSERT_EQ(result.gpus.size(), 1);
    const auto &gpu = result.gpus.first();
    EXPECT_EQ(gpu.memoryTotalMiB, 2004.0);
    EXPECT_EQ(gpu.memoryFreeMiB, 2004.0);
    EXPECT_EQ(gpu.memoryUsedMiB, 0.0);
    EXPECT_EQ(gpu.temperatureC, 44.0);
    ASSERT_TRUE(gpu.utilizationPercent.has_value());
    EXPECT_EQ(*gpu.utilizationPercent, 0.0);
    EXPECT_EQ(gpu.unavailable, QStringList{QStringLiteral("fan.speed: [N/A]")});
}

// Older drivers said `[Not Supported]` for the same field.
TEST(NvidiaSmiCsv, NotSupportedIsAbsent)
{
    const auto result = NvidiaSmiCsv::parse(
        readData(QStringLiteral("nvidia-smi/02-i3pystatus-pr776-not-supported.csv")),
        i3pystatusFields);
    ASSERT_TRUE(result.ok()) << result.error.toStdString();
    ASSERT_EQ(result.gpus.size(), 1);
    EXPECT_EQ(result.gpus.first().temperatureC, 44.0);
    EXPECT_EQ(result.gpus.first().unavailable,
              QStringList{QStringLiteral("fan.speed: [Not Supported]")});
}

// 19 fields from an RTX 2080: a name with a space, `gpu_uuid`, bare `N/A`.
TEST(NvidiaSmiCsv, ManyFieldsWithBareNotAvailable)
{
    const auto result = NvidiaSmiCsv::parse(
        readData(QStringLiteral("nvidia-smi/03-gpu-utils-issue83-rtx2080.csv")),
        fields("power.limit,power.min_limit,power.max_limit,memory.total,vbios_version,"
               "driver_version,name,gpu_uuid,power.draw,temperature.gpu,temperature.memory,"
               "clocks.current.graphics,clocks.sm,clocks.mem,utilization.gpu,utilization.memory,"
               "fan.speed,pcie.link.width.current,pstate"));
    ASSERT_TRUE(result.ok()) << result.error.toStdString();
    ASSERT_EQ(result.gpus.size(), 1);
    const auto &gpu = result.gpus.first();
    EXPECT_EQ(gpu.name, QStringLiteral("GeForce RTX 2080"));
    EXPECT_EQ(gpu.uuid, QStringLiteral("GPU-22b2c6ac-2d49-4863-197c-9c469071178a"));
    EXPECT_EQ(gpu.powerLimitW, 200.0);
    EXPECT_EQ(gpu.powerDrawW, 176.98);
    EXPECT_EQ(gpu.memoryTotalMiB, 7979.0);
    EXPECT_EQ(gpu.temperatureC, 45.0);
    EXPECT_EQ(gpu.utilizationPercent, 86.0);
    EXPECT_EQ(gpu.index, -1); // not queried
    EXPECT_EQ(gpu.unavailable, QStringList{QStringLiteral("temperature.memory: N/A")});
}

// Two A6000s held by vLLM workers; the same bytes with CRLF endings read the same.
TEST(NvidiaSmiCsv, TwoGpusWithIndexUuidNameAndCrlf)
{
    const QStringList queried = fields("index,uuid,name,memory.free");
    const QByteArray recorded =
        readData(QStringLiteral("nvidia-smi/04-two-rtx-a6000-index-uuid-name.csv"));
    for (const QByteArray &output : {recorded, QByteArray(recorded).replace("\n", "\r\n")}) {
        const auto result = NvidiaSmiCsv::parse(output, queried);
        ASSERT_TRUE(result.ok()) << result.error.toStdString();
        ASSERT_EQ(result.gpus.size(), 2);
        EXPECT_EQ(result.gpus.at(0).index, 0);
        EXPECT_EQ(result.gpus.at(1).index, 1);
        EXPECT_EQ(result.gpus.at(0).uuid,
                  QStringLiteral("GPU-9de4332b-3b09-a3b4-5589-30229f0c14fe"));
        EXPECT_EQ(result.gpus.at(1).name, QStringLiteral("NVIDIA RTX A6000"));
        EXPECT_EQ(result.gpus.at(0).memoryFreeMiB, 2296.0);
        EXPECT_EQ(result.gpus.at(1).memoryFreeMiB, 3497.0);
        EXPECT_FALSE(result.gpus.at(0).memoryUsedMiB.has_value());
    }
}

// Padded values (`,     0,`) and a name with spaces before the numbers.
TEST(NvidiaSmiCsv, PaddedValues)
{
    const auto result = NvidiaSmiCsv::parse(
        readData(QStringLiteral("nvidia-smi/05-rtx3060-rtx5060ti-aligned.csv")),
        fields("index,name,memory.used,memory.total,utilization.gpu,temperature.gpu"));
    ASSERT_TRUE(result.ok()) << result.error.toStdString();
    ASSERT_EQ(result.gpus.size(), 2);
    EXPECT_EQ(result.gpus.at(0).name, QStringLiteral("NVIDIA GeForce RTX 3060"));
    EXPECT_EQ(result.gpus.at(0).memoryUsedMiB, 0.0);
    EXPECT_EQ(result.gpus.at(0).memoryTotalMiB, 12288.0);
    EXPECT_EQ(result.gpus.at(1).name, QStringLiteral("NVIDIA GeForce RTX 5060 Ti"));
    EXPECT_EQ(result.gpus.at(1).memoryUsedMiB, 15868.0);
    EXPECT_EQ(result.gpus.at(1).utilizationPercent, 100.0);
    EXPECT_EQ(result.gpus.at(1).temperatureC, 67.0);
}

// The driver message printed instead of CSV is the error, word for word.
TEST(NvidiaSmiCsv, DriverFailureMessageIsTheError)
{
    const QByteArray message = readData(QStringLiteral("nvidia-smi/06-driver-failure.txt"));
    const auto result = NvidiaSmiCsv::parse(message);
    EXPECT_FALSE(result.ok());
    EXPECT_TRUE(result.gpus.isEmpty());
    EXPECT_EQ(result.error, QString::fromUtf8(message).trimmed());
    EXPECT_TRUE(result.error.startsWith(
        QStringLiteral("NVIDIA-SMI has failed because it couldn't communicate")));
}

// nvidia-smi does not quote: a comma in the name is told apart by field count.
TEST(NvidiaSmiCsv, CommaInNameJoinedBackByFieldCount)
{
    const auto middle = NvidiaSmiCsv::parse("0, GPU-x, Vendor Card, Rev 2, 2296\n",
                                            fields("index,uuid,name,memory.free"));
    ASSERT_TRUE(middle.ok()) << middle.error.toStdString();
    EXPECT_EQ(middle.gpus.first().name, QStringLiteral("Vendor Card, Rev 2"));
    EXPECT_EQ(middle.gpus.first().memoryFreeMiB, 2296.0);

    const auto last =
        NvidiaSmiCsv::parse("3, GPU-y, 97, 70001, 81559, 64, 612.40, 700.00, Vendor Card, Rev 2\n");
    ASSERT_TRUE(last.ok()) << last.error.toStdString();
    EXPECT_EQ(last.gpus.first().index, 3);
    EXPECT_EQ(last.gpus.first().name, QStringLiteral("Vendor Card, Rev 2"));
    EXPECT_EQ(last.gpus.first().powerLimitW, 700.0);

    const auto noName = NvidiaSmiCsv::parse("1, 2, 3\n", fields("index,memory.used"));
    EXPECT_FALSE(noName.ok());
}

// A second line cut short (output capped, a dying GPU) fails with its line number.
TEST(NvidiaSmiCsv, BadLineNamedByNumber)
{
    QByteArray output = readData(QStringLiteral("nvidia-smi/04-two-rtx-a6000-index-uuid-name.csv"));
    output += "2, GPU-zz\n";
    const auto shortLine = NvidiaSmiCsv::parse(output, fields("index,uuid,name,memory.free"));
    EXPECT_FALSE(shortLine.ok());
    EXPECT_TRUE(shortLine.error.startsWith(QStringLiteral("line 3: expected 4 values")))
        << shortLine.error.toStdString();

    const auto notNumber =
        NvidiaSmiCsv::parse("0, GPU-x, Card, lots\n", fields("index,uuid,name,memory.free"));
    EXPECT_EQ(
        notNumber.error,
        QStringLiteral("line 1: memory.free is not a number: \"lots\" in: 0, GPU-x, Card, lots"));
}

TEST(NvidiaSmiCsv, WarningLinesKeptApart)
{
    QByteArray output = "WARNING: infoROM is corrupted at gpu 0000:01:00.0\n";
    output += readData(QStringLiteral("nvidia-smi/04-two-rtx-a6000-index-uuid-name.csv"));
    const auto result = NvidiaSmiCsv::parse(output, fields("index,uuid,name,memory.free"));
    ASSERT_TRUE(result.ok()) << result.error.toStdString();
    EXPECT_EQ(result.gpus.size(), 2);
    EXPECT_EQ(result.warnings,
              QStringList{QStringLiteral("WARNING: infoROM is corrupted at gpu 0000:01:00.0")});
}

TEST(NvidiaSmiCsv, DefaultCommandPutsNameLast)
{
    EXPECT_EQ(NvidiaSmiCsv::defaultCommand(),
              QStringLiteral("nvidia-smi --query-gpu=index,uuid,utilization.gpu,memory.used,"
                             "memory.total,temperature.gpu,power.draw,power.limit,name "
                             "--format=csv,noheader,nounits"));
}

TEST(GpuTableModel, APollSignalsOnlyTheCellsThatChanged)
{
    opsdeck::remote::GpuTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    opsdeck::remote::GpuSample idle;
    idle.index = 0;
    idle.name = QStringLiteral("NVIDIA H100 80GB HBM3");
    idle.utilizationPercent = 0;
    idle.memoryUsedMiB = 1000;
    idle.memoryTotalMiB = 81559;
    idle.temperatureC = 30;
    opsdeck::remote::GpuSample second = idle;
    second.index = 1;
    model.setGpus({idle, second});
    ASSERT_EQ(model.rowCount(), 2);

    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setGpus({idle, second});
    EXPECT_EQ(changed.size(), 0) << "nothing changed: nothing repaints";

    opsdeck::remote::GpuSample busy = second;
    busy.utilizationPercent = 97;
    model.setGpus({idle, busy});
    ASSERT_EQ(changed.size(), 1);
    EXPECT_EQ(changed.first().at(0).value<QModelIndex>().row(), 1);
    EXPECT_EQ(changed.first().at(1).value<QModelIndex>().row(), 1);
    EXPECT_EQ(changed.first().at(0).value<QModelIndex>().column(),
              opsdeck::remote::GpuTableModel::Utilization);
    EXPECT_EQ(changed.first().at(1).value<QModelIndex>().column(),
              opsdeck::remote::GpuTableModel::Utilization);
}
