// HostPanel on real polls: opsdeck-sim processes with pid files, polled by
// HostSignals through LocalTransport. The GPU state comes from a fake
// `nvidia-smi` first on PATH (CommandRequest::environment) that prints a
// recorded output (tests/data/nvidia-smi/05-...); the "no nvidia-smi" state is
// this machine's own. Screenshots of both go to /tmp.
#include "fakenvidiasmi.h"
#include "gputablemodel.h"
#include "guiwatchdog.h"
#include "hostpanel.h"
#include "hostsignals.h"
#include "localtransport.h"
#include "serviceprocesstablemodel.h"
#include "simprocess.h"
#include "testsupport.h"

#include <QAbstractItemModelTester>
#include <QCoreApplication>
#include <QProcess>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace std::chrono_literals;
using opsdeck::remote::HostSignals;
using opsdeck::remote::ServiceProcessQuery;
constexpr int WarningRole = opsdeck::remote::ServiceProcessTableModel::WarningRole;
using opsdeck::test::SimProcess;
using opsdeck::test::waitUntil;

namespace {

QStringList simOnPort(const QString &role, int port)
{
    return {QStringLiteral("--role"),        role,
            QStringLiteral("--port"),        QString::number(port),
            QStringLiteral("--ready-delay"), QStringLiteral("0")};
}

QString cell(const QTableView *table, int row, int column)
{
    return table->model()->index(row, column).data().toString();
}

// The fill a bar cell is drawn with, 0..1 (-1: drawn as plain text).
double barFill(const QTableView *table, int row, int column)
{
    const QVariant fill =
        table->model()->index(row, column).data(opsdeck::remote::GpuTableModel::FractionRole);
    return fill.isValid() ? fill.toDouble() : -1;
}

// Rows whose column `column` contains `text`.
int rowsContaining(const QTableView *table, int column, const QString &text)
{
    int rows = 0;
    for (int row = 0; row < table->model()->rowCount(); ++row)
        rows += cell(table, row, column).contains(text) ? 1 : 0;
    return rows;
}

} // namespace

TEST(HostPanel, GpusAndProcessesWithAnOldInstance)
{
    opsdeck::test::GuiWatchdog watchdog;
    QTemporaryDir dir;
    const int decodePort = opsdeck::test::freeTcpPort();
    const int routerPort = opsdeck::test::freeTcpPort();
    SimProcess decode;
    ASSERT_TRUE(decode.start(simOnPort(QStringLiteral("decode"), decodePort)))
        << decode.errorText().toStdString();
    SimProcess oldRouter;
    ASSERT_TRUE(oldRouter.start(simOnPort(QStringLiteral("engine"), routerPort)))
        << oldRouter.errorText().toStdString();
    const QString decodePid = dir.filePath(QStringLiteral("decode.pid"));
    const QString routerPid = dir.filePath(QStringLiteral("router.pid"));
    ASSERT_TRUE(opsdeck::test::writeFile(decodePid, QByteArray::number(decode.pid()) + '\n'));
    // The pid of a process that has exited: the pid file of a crashed start.
    QProcess exited;
    exited.start(QStringLiteral("true"), {});
    ASSERT_TRUE(exited.waitForStarted(5000));
    const qint64 deadPid = exited.processId();
    ASSERT_TRUE(exited.waitForFinished(5000));
    ASSERT_TRUE(opsdeck::test::writeFile(routerPid, QByteArray::number(deadPid) + '\n'));

    const QString fields =
        QStringLiteral("index,name,memory.used,memory.total,utilization.gpu,temperature.gpu");
    opsdeck::remote::LocalTransport transport(QStringLiteral("gpu-1"));
    HostSignals hostSignals(&transport, QVector<ServiceProcessQuery>{
                                            {QStringLiteral("decode"), decodePid, decodePort},
                                            {QStringLiteral("router"), routerPid, routerPort}});
    hostSignals.setGpuFields(fields.split(QLatin1Char(',')));
    hostSignals.setEnvironment(opsdeck::test::pathFirst(opsdeck::test::fakeNvidiaSmi(
        dir, fields, QStringLiteral("nvidia-smi/05-rtx3060-rtx5060ti-aligned.csv"))));

    HostPanel panel;
    QAbstractItemModelTester gpuTester(panel.gpuModel(),
                                       QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester processTester(panel.processModel(),
                                           QAbstractItemModelTester::FailureReportingMode::Fatal);
    panel.resize(980, 520);
    panel.setHostSignals(&hostSignals);
    panel.show();
    hostSignals.start();
    ASSERT_TRUE(waitUntil([&] { return panel.gpuTable()->model()->rowCount() == 2; }, 20s))
        << panel.errorText().toStdString();
    hostSignals.stop();

    EXPECT_TRUE(panel.gpuStatusText().isEmpty());
    EXPECT_TRUE(panel.gpuTable()->isVisible());
    EXPECT_TRUE(panel.errorText().isEmpty()) << panel.errorText().toStdString();
    EXPECT_EQ(cell(panel.gpuTable(), 1, 1), QStringLiteral("NVIDIA GeForce RTX 5060 Ti"));
    EXPECT_EQ(cell(panel.gpuTable(), 1, 2), QStringLiteral("100 %"));
    EXPECT_EQ(barFill(panel.gpuTable(), 1, 2), 1.0);
    EXPECT_EQ(cell(panel.gpuTable(), 1, 3), QStringLiteral("15.5 / 15.9 GiB"));
    EXPECT_NEAR(barFill(panel.gpuTable(), 1, 3), 15868.0 / 16311.0, 1e-9);
    EXPECT_EQ(cell(panel.gpuTable(), 0, 3), QStringLiteral("0.0 / 12.0 GiB"));
    EXPECT_EQ(barFill(panel.gpuTable(), 0, 3), 0.0);
    EXPECT_EQ(barFill(panel.gpuTable(), 1, 4), -1); // temperature is text
    EXPECT_EQ(cell(panel.gpuTable(), 1, 4), QStringLiteral("67 \u00b0C"));
    EXPECT_EQ(cell(panel.gpuTable(), 1, 5), QStringLiteral("n/a")); // power was not in that run

    const QTableView *processes = panel.processTable();
    EXPECT_EQ(rowsContaining(processes, 1, QString::number(decode.pid())), 1);
    EXPECT_EQ(rowsContaining(processes, 5, QStringLiteral("old process still running")), 1);
    EXPECT_EQ(
        rowsContaining(processes, 6, QStringLiteral("says %1 but it is not running").arg(deadPid)),
        1);
    EXPECT_EQ(rowsContaining(processes, 3, QStringLiteral("up ")), 2);
    for (int row = 0; row < processes->model()->rowCount(); ++row) {
        // Drawn in the warning colour: the old instance and the pid file's notes only.
        const bool old = cell(processes, row, 5) == u"old process still running";
        EXPECT_EQ(processes->model()->index(row, 5).data(WarningRole).toBool(), old) << row;
        EXPECT_EQ(processes->model()->index(row, 6).data(WarningRole).toBool(),
                  !cell(processes, row, 6).isEmpty())
            << row;
    }
    EXPECT_TRUE(panel.lastUpdateText().startsWith(QStringLiteral("updated ")));
    EXPECT_LT(watchdog.worstStallMs(), 1000);
    QCoreApplication::processEvents(); // lay out the last sample's texts before the grab
    EXPECT_TRUE(panel.grab().save(QStringLiteral("/tmp/hostpanel-gpus.png")));
}

TEST(HostPanel, NoNvidiaSmiShownPlainly)
{
    ASSERT_TRUE(QStandardPaths::findExecutable(QStringLiteral("nvidia-smi")).isEmpty());
    opsdeck::test::GuiWatchdog watchdog;
    QTemporaryDir dir;
    const int port = opsdeck::test::freeTcpPort();
    SimProcess engine;
    ASSERT_TRUE(engine.start(simOnPort(QStringLiteral("engine"), port)))
        << engine.errorText().toStdString();
    const QString pidFile = dir.filePath(QStringLiteral("engine.pid"));
    ASSERT_TRUE(opsdeck::test::writeFile(pidFile, QByteArray::number(engine.pid()) + '\n'));

    opsdeck::remote::LocalTransport transport(QStringLiteral("gpu-3"));
    HostSignals hostSignals(
        &transport, QVector<ServiceProcessQuery>{{QStringLiteral("engine"), pidFile, port}});
    HostPanel panel;
    panel.resize(980, 360);
    panel.setHostSignals(&hostSignals);
    panel.show();
    hostSignals.start();
    ASSERT_TRUE(waitUntil([&] { return !panel.gpuStatusText().isEmpty(); }, 20s));
    hostSignals.stop();

    EXPECT_EQ(panel.gpuStatusText(),
              QStringLiteral("No nvidia-smi on host gpu-3 \u2014 GPU signals unavailable"));
    EXPECT_FALSE(panel.gpuTable()->isVisible());
    EXPECT_EQ(panel.processTable()->model()->rowCount(), 1);
    EXPECT_EQ(cell(panel.processTable(), 0, 1), QString::number(engine.pid()));
    EXPECT_EQ(cell(panel.processTable(), 0, 5), QStringLiteral("pid file's process"));
    EXPECT_LT(watchdog.worstStallMs(), 1000);
    QCoreApplication::processEvents(); // lay out the last sample's texts before the grab
    EXPECT_TRUE(panel.grab().save(QStringLiteral("/tmp/hostpanel-no-nvidia-smi.png")));
}
