// The probe lab in the window against a real prefill/decode/router/proxy
// cluster of opsdeck-sim processes on loopback (tests/probes/stallcluster):
// with the proxy's reused-connection stall the table fills with fresh and
// reused probes, the stall banner names the proxy with its evidence, a
// "diagnosis" marker lands in the history database, and "Copy as curl" puts
// a command without the API key on the clipboard; on a healthy cluster
// "Verify" passes its three stages and "Batch check" shows a verdict and its
// running-requests chart. A watchdog thread fails a test whose GUI thread
// stalls for more than 1 s. Needs the Secret Service (packaging/test.sh runs
// the tests under a D-Bus session with gnome-keyring).
#include "guiwatchdog.h"
#include "historystore.h"
#include "hotwindow.h"
#include "mainwindow.h"
#include "probecheckspanel.h"
#include "probelab.h"
#include "probelabpanel.h"
#include "probelatencypanel.h"
#include "probelatencywindow.h"
#include "secretstore.h"
#include "stallcluster.h"
#include "testsupport.h"
#include "timeserieschart.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QFile>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QPushButton>
#include <QSet>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <gtest/gtest.h>
#include <mutex>
#include <thread>

using namespace opsdeck;
using namespace std::chrono_literals;
using opsdeck::probes::ProbeRow;
using opsdeck::test::GuiWatchdog;
using opsdeck::test::waitUntil;

namespace {

const QByteArray proxyKey = QByteArrayLiteral("sk-probelab-test-5e1d9c04");

/// Writes `yaml` as the inventory and opens it in `window`, history in `dir`.
bool openInventory(MainWindow &window, const QTemporaryDir &dir, const QString &yaml)
{
    const QString path = dir.filePath(QStringLiteral("inventory.yaml"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return false;
    file.write(yaml.toUtf8());
    file.close();
    window.setDataDir(dir.filePath(QStringLiteral("data")));
    return window.openInventory(path);
}

QVector<ProbeRow> rowsOf(const probes::ProbeTableModel &table, const QString &path)
{
    QVector<ProbeRow> rows;
    for (int i = 0; i < table.rowCount(); ++i)
        if (table.row(i).pathName == path)
            rows << table.row(i);
    return rows;
}

bool hasMarker(const QString &databasePath, const QString &kind, const QString &service = {})
{
    history::HistoryStore store(databasePath);
    if (!store.open())
        return false;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (const history::Marker &marker : store.markers(now - 3600 * 1000, now + 60 * 1000))
        if (marker.kind == kind && (service.isEmpty() || marker.service == service))
            return true;
    return false;
}

} // namespace

// The table keeps the newest 500 probes, newest first, under the model tester.
TEST(ProbeTableModel, KeepsTheNewestRowsFirstAndBounded)
{
    probes::ProbeTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    for (int i = 0; i < probes::ProbeTableModel::maxRows() + 20; ++i) {
        ProbeRow row;
        row.pathName = QStringLiteral("router direct");
        row.result.localPort = 10000 + i;
        row.result.mode = i % 2 ? probes::ConnectionMode::Reused : probes::ConnectionMode::Fresh;
        row.result.connectionReused = i % 2;
        row.result.staleKeepAlive = i == 519;
        row.result.status = 200;
        model.append(row);
    }
    ASSERT_EQ(model.rowCount(), probes::ProbeTableModel::maxRows());
    EXPECT_EQ(model.row(0).result.localPort, 10519);
    EXPECT_EQ(model.row(model.rowCount() - 1).result.localPort, 10020);
    EXPECT_EQ(model.data(model.index(0, probes::ProbeTableModel::Reused)).toString(),
              QStringLiteral("stale"));
    EXPECT_EQ(model.data(model.index(1, probes::ProbeTableModel::Reused)).toString(),
              QStringLiteral("no"));
    EXPECT_EQ(model.data(model.index(2, probes::ProbeTableModel::Reused)).toString(),
              QStringLiteral("yes"));
    EXPECT_EQ(model.data(model.index(0, probes::ProbeTableModel::Connection)).toString(),
              QStringLiteral("10519"));
}

// p50 and p99 are nearest-rank over the last minute; older probes fall out.
TEST(ProbeLatencyWindow, PercentilesOverTheLastMinute)
{
    probes::ProbeLatencyWindow window(60'000);
    EXPECT_EQ(window.freshPercentile(0.5), -1);
    for (int i = 1; i <= 100; ++i)
        window.addFresh(i * 100, i); // 1..100 ms within 10 s
    EXPECT_EQ(window.freshPercentile(0.5), 50);
    EXPECT_EQ(window.freshPercentile(0.99), 99);
    window.addReused(100'000, 6000); // 90 s later: every fresh sample is older than a minute
    EXPECT_EQ(window.freshCount(), 0);
    EXPECT_EQ(window.reusedPercentile(0.5), 6000);
    EXPECT_FALSE(window.reusedPercentileIsLowerBound(0.5)) << "an answer in 6 s is a measurement";
    // A probe that hit its deadline: the percentile it sets is a lower bound.
    window.addReused(100'100, 2000, true);
    window.addReused(100'200, 2000, true);
    EXPECT_EQ(window.reusedPercentile(0.5), 2000);
    EXPECT_TRUE(window.reusedPercentileIsLowerBound(0.5));
    EXPECT_EQ(window.reusedPercentile(0.99), 6000);
    EXPECT_FALSE(window.reusedPercentileIsLowerBound(0.99));
}

TEST(ProbeLabWindow, NamesTheStallingProxyRecordsItAndCopiesProbesAsCurl)
{
    test::StallCluster cluster;
    // The proxy stalls reused connections 3 s, past the 2 s probe timeout of
    // a 0.5 s idle gap; it wants an API key, so fresh chats through it answer
    // only when the lab read the key from the keychain.
    ASSERT_TRUE(cluster.start(3.0, 0, {QStringLiteral("--api-key"), QString::fromLatin1(proxyKey)}))
        << cluster.error.toStdString();
    ASSERT_TRUE(cluster.waitReady(30s));
    const QString keyName = secrets::SecretStore::httpApiKeyName(QStringLiteral("proxy-0"));
    const auto written = secrets::SecretStore::shared().writeBlocking(keyName, proxyKey);
    ASSERT_TRUE(written.ok()) << written.error.toStdString();

    QTemporaryDir dir;
    MainWindow window;
    QString yaml = cluster.inventoryYaml();
    yaml.replace(QStringLiteral("metrics_path: none}"),
                 QStringLiteral("metrics_path: none, http: {api_key: secret}}"));
    ASSERT_TRUE(openInventory(window, dir, yaml));
    window.show();
    window.showProbeLab();
    GuiWatchdog watchdog;

    ProbeLabPanel *panel = window.probeLabPanel();
    probes::ProbeLab *lab = window.session()->probeLab();
    QAbstractItemModelTester tester(lab->table(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    ASSERT_EQ(lab->cluster(), QStringLiteral("pd"));
    ASSERT_EQ(panel->latencyPanels().size(), 4); // via proxy, router, decode, prefill
    panel->roundsBox()->setValue(6);
    panel->idleGapBox()->setValue(0.5);
    panel->startButton()->click();
    ASSERT_TRUE(lab->isProbing());
    EXPECT_TRUE(window.stallBannerText().isEmpty());

    // A stall needs 3 stalling rounds in a row: ~2.5 s each here.
    ASSERT_TRUE(waitUntil([&] { return !window.stallBannerText().isEmpty(); }, 60s))
        << panel->statusText().toStdString();
    const QString banner = window.stallBannerText();
    EXPECT_TRUE(banner.startsWith(QStringLiteral("Keep-alive stall at proxy-0 — ")))
        << banner.toStdString();
    EXPECT_TRUE(banner.contains(QStringLiteral("(timed out)"))) << banner.toStdString();
    // The chart's reading says the same: timed-out probes give a lower bound.
    const QString viaProxy = panel->latencyPanels().first()->latestText();
    EXPECT_TRUE(viaProxy.contains(QStringLiteral("reused p50 > 2"))) << viaProxy.toStdString();
    EXPECT_TRUE(banner.contains(QStringLiteral("do not change engine knobs")))
        << banner.toStdString();
    ASSERT_TRUE(lab->diagnosis().has_value());
    EXPECT_EQ(lab->diagnosis()->hop, QStringLiteral("proxy-0"));
    // The banner stays in the window whichever tab shows.
    window.tabs()->setCurrentIndex(0);
    EXPECT_FALSE(window.stallBannerText().isEmpty());
    ASSERT_TRUE(waitUntil(
        [&] {
            return hasMarker(window.session()->databasePath(), QStringLiteral("diagnosis"),
                             QStringLiteral("proxy-0"));
        },
        10s));

    // Stop ends the rounds at once (the idle wait wakes, probes are cancelled).
    panel->stopButton()->click();
    ASSERT_TRUE(waitUntil([&] { return !lab->isProbing(); }, 5s));
    EXPECT_TRUE(panel->startButton()->isEnabled());

    // Fresh probes open a new connection each; reused ones keep one.
    const QVector<ProbeRow> router = rowsOf(*lab->table(), QStringLiteral("router direct"));
    QSet<int> freshPorts;
    QSet<int> reusedPorts;
    int fresh = 0;
    int reused = 0;
    for (const ProbeRow &row : router) {
        if (row.round < 1 || row.result.cancelled)
            continue;
        if (row.result.mode == probes::ConnectionMode::Fresh) {
            ++fresh;
            freshPorts.insert(row.result.localPort);
            EXPECT_FALSE(row.result.connectionReused);
        } else {
            ++reused;
            EXPECT_TRUE(row.result.connectionReused);
            EXPECT_EQ(row.result.connectMs, 0.0);
            reusedPorts.insert(row.result.localPort);
        }
    }
    EXPECT_GE(fresh, 3);
    EXPECT_EQ(freshPorts.size(), fresh);
    EXPECT_GE(reused, 3);
    EXPECT_EQ(reusedPorts.size(), 1);
    // The table says so in words too.
    const auto &model = *lab->table();
    bool sawYes = false;
    for (int i = 0; i < model.rowCount(); ++i)
        sawYes = sawYes || model.data(model.index(i, probes::ProbeTableModel::Reused)).toString() ==
                               QStringLiteral("yes");
    EXPECT_TRUE(sawYes);

    // The proxy path's chart: reused p50 at the 2 s timeout, fresh far below.
    const auto reusedP50 = window.session()->hotWindow()->latest(
        QStringLiteral("proxy-0"),
        probes::ProbeLab::seriesKey(QStringLiteral("via proxy"), true, 50));
    const auto freshP50 = window.session()->hotWindow()->latest(
        QStringLiteral("proxy-0"),
        probes::ProbeLab::seriesKey(QStringLiteral("via proxy"), false, 50));
    ASSERT_TRUE(reusedP50 && freshP50);
    EXPECT_GE(reusedP50->value, 1900);
    EXPECT_LT(freshP50->value, reusedP50->value / 5);

    // Copy as curl of a probe through the proxy: curl, the proxy's URL, the
    // key only as $OPSDECK_API_KEY.
    int proxyRow = -1;
    for (int i = 0; i < model.rowCount() && proxyRow < 0; ++i)
        if (model.row(i).pathName == QStringLiteral("via proxy") &&
            model.row(i).result.kind == probes::ProbeKind::Chat)
            proxyRow = i;
    ASSERT_GE(proxyRow, 0);
    panel->probeTable()->selectRow(proxyRow);
    QApplication::clipboard()->clear();
    panel->copyCurlButton()->click();
    const QString command = QApplication::clipboard()->text();
    EXPECT_TRUE(command.startsWith(QStringLiteral("curl "))) << command.toStdString();
    EXPECT_TRUE(command.contains(cluster.proxy.url())) << command.toStdString();
    EXPECT_TRUE(command.contains(QStringLiteral("$OPSDECK_API_KEY"))) << command.toStdString();
    EXPECT_FALSE(command.contains(QString::fromLatin1(proxyKey))) << command.toStdString();
    for (int i = 0; i < model.rowCount(); ++i)
        EXPECT_FALSE(model.row(i).request.apiKey.contains(proxyKey));

    RecordProperty("worst_gui_stall_ms", int(watchdog.worstStallMs()));
    EXPECT_LT(watchdog.worstStallMs(), 1000);
    secrets::SecretStore::shared().removeBlocking(keyName);
}

TEST(ProbeLabWindow, VerifyPassesFourStagesAndBatchCheckShowsItsVerdictAndChart)
{
    test::StallCluster cluster;
    ASSERT_TRUE(cluster.start(0, 0)) << cluster.error.toStdString();
    ASSERT_TRUE(cluster.waitReady(30s));
    QTemporaryDir dir;
    MainWindow window;
    ASSERT_TRUE(openInventory(window, dir, cluster.inventoryYaml()));
    window.show();
    window.showProbeLab();
    GuiWatchdog watchdog;
    ProbeChecksPanel *checks = window.probeLabPanel()->checksPanel();
    probes::ProbeLab *lab = window.session()->probeLab();

    // Before running, each stage shows its criterion.
    for (const QString &text : checks->stageTexts())
        EXPECT_TRUE(text.contains(QStringLiteral("passes when"))) << text.toStdString();
    checks->verifyButton()->click();
    ASSERT_TRUE(lab->isChecking());
    ASSERT_TRUE(waitUntil([&] { return !lab->isChecking(); }, 120s));
    const QStringList stages = checks->stageTexts();
    ASSERT_EQ(stages.size(), 4);
    EXPECT_TRUE(stages[2].contains(QStringLiteral("keep-alive"))) << stages[2].toStdString();
    for (const QString &stage : stages)
        EXPECT_TRUE(stage.contains(QStringLiteral("✓ passed in"))) << stage.toStdString();
    EXPECT_TRUE(checks->statusText().contains(QStringLiteral("passed")))
        << checks->statusText().toStdString();
    EXPECT_TRUE(checks->verdictText().startsWith(QStringLiteral("BATCHED")))
        << checks->verdictText().toStdString();
    EXPECT_TRUE(hasMarker(window.session()->databasePath(), QStringLiteral("verification")));

    checks->batchSizeBox()->setValue(8);
    checks->batchButton()->click();
    ASSERT_TRUE(waitUntil([&] { return !lab->isChecking(); }, 120s));
    const QString verdict = checks->verdictText();
    EXPECT_TRUE(verdict.startsWith(QStringLiteral("BATCHED")) ||
                verdict.startsWith(QStringLiteral("PARTIAL")) ||
                verdict.startsWith(QStringLiteral("SERIALIZED")))
        << verdict.toStdString();
    EXPECT_TRUE(verdict.contains(QStringLiteral("8 requests"))) << verdict.toStdString();
    EXPECT_GE(checks->runningPointCount(), 2);
    checks->runningChart()->flush();
    EXPECT_GE(checks->runningChart()->pointCount(QStringLiteral("decode running requests")), 2);
    EXPECT_TRUE(hasMarker(window.session()->databasePath(), QStringLiteral("batch-check")));
    RecordProperty("worst_gui_stall_ms", int(watchdog.worstStallMs()));
    EXPECT_LT(watchdog.worstStallMs(), 1000);
    // For a person to look at (never compared): OPSDECK_SCREENSHOT_DIR=DIR.
    if (const QString shots = qEnvironmentVariable("OPSDECK_SCREENSHOT_DIR"); !shots.isEmpty())
        window.grab().save(shots + QStringLiteral("/probelab-checks.png"));
}

TEST(ProbeLabWindow, ProductionClusterAsksForItsNameBeforeABatchCheck)
{
    test::StallCluster cluster;
    ASSERT_TRUE(cluster.start(0, 0)) << cluster.error.toStdString();
    QTemporaryDir dir;
    MainWindow window;
    QString yaml = cluster.inventoryYaml();
    yaml.replace(QStringLiteral("name: decode-0, role: decode,"),
                 QStringLiteral("name: decode-0, role: decode, tags: [production],"));
    ASSERT_TRUE(openInventory(window, dir, yaml));
    window.show();
    ProbeChecksPanel *checks = window.probeLabPanel()->checksPanel();
    probes::ProbeLab *lab = window.session()->probeLab();
    ASSERT_EQ(lab->productionServices(), QStringList{QStringLiteral("decode-0")});

    // A wrong name goes to the guard, which refuses: no request is sent.
    checks->batchButton()->click();
    auto *dialog = window.findChild<QInputDialog *>(QStringLiteral("productionConfirmation"));
    ASSERT_NE(dialog, nullptr);
    EXPECT_FALSE(lab->isChecking());
    EXPECT_TRUE(dialog->labelText().contains(QStringLiteral("decode-0")));
    dialog->setTextValue(QStringLiteral("prod"));
    dialog->accept();
    ASSERT_TRUE(waitUntil([&] { return !lab->isChecking(); }, 10s));
    EXPECT_TRUE(checks->verdictText().contains(QStringLiteral("Not measured")))
        << checks->verdictText().toStdString();
    // The guard's refusal names the service and the cluster to confirm.
    EXPECT_TRUE(checks->verdictText().contains(QStringLiteral("decode-0")))
        << checks->verdictText().toStdString();
    EXPECT_TRUE(checks->batchButton()->isEnabled());
}
