// MetricsDashboard offscreen: every panel draws its series from a HotWindow
// fed with known points, names the metric family and service in its tooltip,
// the decode panel prefers the live batch (/v1/loads) and otherwise shows the
// gauge's age, the dp-rank drill-down draws that rank, and empty panels show a
// placeholder. Set OPSDECK_DASHBOARD_PNG_DIR to keep screenshots (wide and
// 1000 px) for a look.
#include "decodebatchpanel.h"
#include "hotwindow.h"
#include "kvusagepanel.h"
#include "latencypanel.h"
#include "metricsdashboard.h"
#include "pdqueuespanel.h"
#include "routerhealthpanel.h"
#include "seriespanel.h"
#include "testsupport.h"
#include "throughputpanel.h"
#include "timeserieschart.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QLineSeries>
#include <QPixmap>
#include <QRegularExpression>
#include <QScrollArea>
#include <cmath>
#include <gtest/gtest.h>
#include <memory>

using namespace std::chrono_literals;
using opsdeck::history::HotWindow;
using opsdeck::inventory::Role;
using opsdeck::probes::MetricsSnapshot;
using opsdeck::probes::SeriesValue;
using opsdeck::test::waitUntil;

namespace {

const QString decodeName = QStringLiteral("decode-0");
const QString prefillName = QStringLiteral("prefill-0");
const QString routerName = QStringLiteral("router-0");
const QString schedulerRefresh =
    QStringLiteral("every 40 decode steps, 30 s when idle (SGLang --decode-log-interval, "
                   "default 40; also each prefill batch)");

opsdeck::inventory::Service service(const QString &name, Role role)
{
    opsdeck::inventory::Service s;
    s.name = name;
    s.role = role;
    return s;
}

opsdeck::inventory::Inventory pdInventory()
{
    opsdeck::inventory::Inventory inventory;
    inventory.services = {service(prefillName, Role::Prefill), service(decodeName, Role::Decode),
                          service(routerName, Role::Router)};
    return inventory;
}

// The (service, key) series as the dashboard should draw them: `count`
// samples at 1 s ending now, value(i).
struct Fed
{
    QString service;
    QString key;
    int count;
    std::function<double(int)> value;
    QString family; ///< SeriesValue::source noted for it
};

QLineSeries *line(TimeSeriesChart *chart, const QString &name)
{
    for (QAbstractSeries *s : chart->findChild<QChartView *>()->chart()->series())
        if (s->name() == name)
            return qobject_cast<QLineSeries *>(s);
    return nullptr;
}

struct Dashboard
{
    explicit Dashboard(int width = 1600)
    {
        dashboard->setInventory(pdInventory());
        dashboard->resize(width, 1500);
        dashboard->show();
        EXPECT_TRUE(waitUntil(
            [&] {
                return dashboard->throughputPanel()->chart()->plotWidthPx() > 200 &&
                       dashboard->decodePanel()->chart()->plotWidthPx() > 200;
            },
            5s));
    }
    // Appends every fed series and notes one snapshot per service with the
    // families, as the poller and recorder would.
    void feed(const QVector<Fed> &series, qint64 sampledAgoMs = 0)
    {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        QHash<QString, MetricsSnapshot> snapshots;
        for (const Fed &f : series) {
            for (int i = 0; i < f.count; ++i)
                window.append(f.service, f.key, now - (f.count - 1 - i) * 1000LL, f.value(i));
            if (f.key.startsWith(QStringLiteral("live_")))
                continue;
            MetricsSnapshot &snapshot = snapshots[f.service];
            snapshot.service = f.service;
            snapshot.timeMs = now;
            const bool gauge = f.key.startsWith(QStringLiteral("running")) ||
                               f.key.startsWith(QStringLiteral("waiting"));
            snapshot.values.append(SeriesValue{
                f.key, QString(), f.value(f.count - 1), gauge ? now - sampledAgoMs : now, f.family,
                gauge ? schedulerRefresh : QString(), QString(), QString()});
        }
        for (const MetricsSnapshot &snapshot : std::as_const(snapshots))
            dashboard->noteSnapshot(snapshot);
    }
    void drawNow()
    {
        for (SeriesPanel *panel : dashboard->panels())
            panel->redraw();
        // A panel that chose new series has a new chart: wait for its layout.
        EXPECT_TRUE(waitUntil(
            [&] {
                for (SeriesPanel *panel : dashboard->panels())
                    if (panel->chart()->plotWidthPx() < 200)
                        return false;
                return true;
            },
            5s));
        for (SeriesPanel *panel : dashboard->panels())
            panel->chart()->flush();
    }

    HotWindow window;
    std::unique_ptr<MetricsDashboard> dashboard = std::make_unique<MetricsDashboard>(&window);
};

QVector<Fed> realisticPd()
{
    const auto wave = [](double base, double amp, double period) {
        return [=](int i) { return base + amp * std::sin(i / period) + (i % 7) * amp * 0.05; };
    };
    return {
        {decodeName, QStringLiteral("live_running"), 300,
         [](int i) { return i < 120   ? 3
                            : i < 200 ? 19
                                      : 12 + i % 3; }, QString()},
        {decodeName, QStringLiteral("live_waiting"), 300,
         [](int i) { return i > 150 && i < 175 ? 4 : 0; }, QString()},
        {decodeName, QStringLiteral("running"), 300, [](int i) { return (i / 40) % 3 * 6; },
         QStringLiteral("sglang:num_running_reqs")},
        {decodeName, QStringLiteral("waiting"), 300, [](int) { return 0; },
         QStringLiteral("sglang:num_queue_reqs")},
        {decodeName, QStringLiteral("running{dp_rank=\"0\"}"), 300,
         [](int i) { return (i / 40) % 3 * 2; }, QStringLiteral("sglang:num_running_reqs")},
        {decodeName, QStringLiteral("running{dp_rank=\"1\"}"), 300,
         [](int i) { return (i / 40) % 3 * 4; }, QStringLiteral("sglang:num_running_reqs")},
        {decodeName, QStringLiteral("waiting{dp_rank=\"1\"}"), 300, [](int) { return 0; },
         QStringLiteral("sglang:num_queue_reqs")},
        {prefillName, QStringLiteral("prompt_tokens_per_s"), 299, wave(5200, 1800, 23),
         QStringLiteral("sglang:prompt_tokens_total")},
        {decodeName, QStringLiteral("generation_tokens_per_s"), 299, wave(1450, 400, 31),
         QStringLiteral("sglang:generation_tokens_total")},
        {prefillName, QStringLiteral("kv_usage"), 300, wave(0.22, 0.08, 40),
         QStringLiteral("sglang:token_usage")},
        {decodeName, QStringLiteral("kv_usage"), 300, wave(0.61, 0.12, 50),
         QStringLiteral("sglang:token_usage")},
        {decodeName, QStringLiteral("kv_usage_max"), 300, wave(0.70, 0.12, 50),
         QStringLiteral("sglang:token_usage")},
        {decodeName, QStringLiteral("ttft_p50_s"), 240, wave(0.21, 0.05, 20),
         QStringLiteral("sglang:time_to_first_token_seconds")},
        {decodeName, QStringLiteral("ttft_p99_s"), 240, wave(0.62, 0.2, 20),
         QStringLiteral("sglang:time_to_first_token_seconds")},
        {prefillName, QStringLiteral("prefill_bootstrap_queue"), 300,
         [](int i) { return i % 50 < 5 ? 2 : 0; },
         QStringLiteral("sglang:num_prefill_bootstrap_queue_reqs")},
        {prefillName, QStringLiteral("prefill_inflight_queue"), 300,
         [](int i) { return i % 30 < 10 ? 3 : 1; },
         QStringLiteral("sglang:num_prefill_inflight_queue_reqs")},
        {decodeName, QStringLiteral("decode_prealloc_queue"), 300,
         [](int i) { return i % 40 < 8 ? 1 : 0; },
         QStringLiteral("sglang:num_decode_prealloc_queue_reqs")},
        {decodeName, QStringLiteral("decode_transfer_queue"), 300,
         [](int i) { return i % 25 < 6 ? 2 : 0; },
         QStringLiteral("sglang:num_decode_transfer_queue_reqs")},
        {prefillName, QStringLiteral("bootstrap_failures_per_s"), 299, [](int) { return 0; },
         QStringLiteral("sglang:num_bootstrap_failed_reqs_total")},
        {decodeName, QStringLiteral("transfer_failures_per_s"), 299,
         [](int i) { return i > 250 && i < 260 ? 0.1 : 0; },
         QStringLiteral("sglang:num_transfer_failed_reqs_total")},
        {routerName, QStringLiteral("workers_healthy"), 300,
         [](int i) { return i > 100 && i < 140 ? 1 : 2; },
         QStringLiteral("sgl_router_worker_health")},
        {routerName, QStringLiteral("workers_total"), 300, [](int) { return 2; },
         QStringLiteral("sgl_router_worker_health")},
    };
}

// Keeps a screenshot for a look when OPSDECK_DASHBOARD_PNG_DIR is set.
void keepScreenshot(QWidget *widget, const QString &name)
{
    const QString dir = qEnvironmentVariable("OPSDECK_DASHBOARD_PNG_DIR");
    if (!dir.isEmpty())
        widget->grab().save(QDir(dir).filePath(QStringLiteral("dashboard-%1.png").arg(name)));
}

} // namespace

TEST(MetricsDashboard, EachPanelDrawsItsSeriesWithTheirCountsAndLastValues)
{
    Dashboard d;
    d.feed(realisticPd());
    d.dashboard->noteLoad(
        {decodeName, QDateTime::currentMSecsSinceEpoch(), 13, 0, QStringLiteral("/v1/loads")});
    d.drawNow();

    const struct
    {
        SeriesPanel *panel;
        QString label;
        qsizetype count;
        double last; ///< as shown (after the panel's scale)
    } expected[] = {
        {d.dashboard->decodePanel(), QStringLiteral("running requests"), 300, 12 + 299 % 3},
        {d.dashboard->decodePanel(), QStringLiteral("waiting requests"), 300, 0},
        {d.dashboard->throughputPanel(), QStringLiteral("prompt · prefill-0"), 299,
         5200 + 1800 * std::sin(298 / 23.0) + (298 % 7) * 1800 * 0.05},
        {d.dashboard->throughputPanel(), QStringLiteral("generation · decode-0"), 299,
         1450 + 400 * std::sin(298 / 31.0) + (298 % 7) * 400 * 0.05},
        {d.dashboard->kvUsagePanel(), decodeName, 300,
         100 * (0.61 + 0.12 * std::sin(299 / 50.0) + (299 % 7) * 0.12 * 0.05)},
        {d.dashboard->latencyPanel(), QStringLiteral("p50 · decode-0"), 240,
         1000 * (0.21 + 0.05 * std::sin(239 / 20.0) + (239 % 7) * 0.05 * 0.05)},
        {d.dashboard->pdQueuesPanel()->queues(), QStringLiteral("inflight · prefill-0"), 300,
         299 % 30 < 10 ? 3 : 1},
        {d.dashboard->pdQueuesPanel()->failures(), QStringLiteral("transfer · decode-0"), 299, 0},
        {d.dashboard->routerHealthPanel(), QStringLiteral("healthy · router-0"), 300, 2},
        {d.dashboard->routerHealthPanel(), QStringLiteral("total · router-0"), 300, 2},
    };
    for (const auto &e : expected) {
        SCOPED_TRACE(e.label.toStdString());
        EXPECT_FALSE(e.panel->isShowingPlaceholder());
        ASSERT_NE(line(e.panel->chart(), e.label), nullptr);
        // 300 s in a plot wider than 200 px: decimation keeps every point.
        EXPECT_EQ(e.panel->chart()->pointCount(e.label), e.count);
        EXPECT_NEAR(e.panel->chart()->drawnPoints(e.label).back().y(), e.last, 1e-9);
    }
    EXPECT_TRUE(d.dashboard->decodePanel()->latestText().contains(QStringLiteral("running 13")) ||
                d.dashboard->decodePanel()->latestText().contains(
                    QStringLiteral("running %1").arg(12 + 299 % 3)));
    EXPECT_TRUE(d.dashboard->routerHealthPanel()->latestText().contains(
        QStringLiteral("router-0: 2 of 2 workers healthy")));
    EXPECT_TRUE(d.dashboard->latencyPanel()->latestText().startsWith(
        QStringLiteral("TTFT decode-0: p50 ")));
    EXPECT_TRUE(d.dashboard->kvUsagePanel()->latestText().contains(QStringLiteral("fullest rank")));
}

TEST(MetricsDashboard, TooltipsNameTheMetricFamilyAndTheService)
{
    Dashboard d;
    d.feed(realisticPd());
    d.drawNow();
    const struct
    {
        SeriesPanel *panel;
        QStringList words;
    } expected[] = {
        {d.dashboard->throughputPanel(),
         {QStringLiteral("sglang:prompt_tokens_total of prefill-0"),
          QStringLiteral("sglang:generation_tokens_total of decode-0")}},
        {d.dashboard->kvUsagePanel(), {QStringLiteral("sglang:token_usage of decode-0")}},
        {d.dashboard->latencyPanel(),
         {QStringLiteral("sglang:time_to_first_token_seconds of decode-0")}},
        {d.dashboard->pdQueuesPanel()->queues(),
         {QStringLiteral("sglang:num_decode_transfer_queue_reqs of decode-0")}},
        {d.dashboard->pdQueuesPanel()->failures(),
         {QStringLiteral("sglang:num_bootstrap_failed_reqs_total of prefill-0")}},
        {d.dashboard->routerHealthPanel(),
         {QStringLiteral("sgl_router_worker_health of router-0")}},
        {d.dashboard->decodePanel(), {QStringLiteral("of decode-0")}},
    };
    for (const auto &e : expected) {
        SCOPED_TRACE(e.panel->title().toStdString());
        for (const QString &word : e.words) {
            EXPECT_TRUE(e.panel->toolTip().contains(word)) << e.panel->toolTip().toStdString();
            EXPECT_TRUE(e.panel->chart()->sourceTooltip().contains(word));
        }
    }
}

TEST(MetricsDashboard, DecodePanelPrefersTheLiveBatchOverTheGauges)
{
    Dashboard d;
    d.feed({{decodeName, QStringLiteral("live_running"), 30, [](int) { return 17; }, QString()},
            {decodeName, QStringLiteral("live_waiting"), 30, [](int) { return 2; }, QString()},
            {decodeName, QStringLiteral("running"), 30, [](int) { return 5; },
             QStringLiteral("sglang:num_running_reqs")},
            {decodeName, QStringLiteral("waiting"), 30, [](int) { return 0; },
             QStringLiteral("sglang:num_queue_reqs")}});
    d.dashboard->noteLoad(
        {decodeName, QDateTime::currentMSecsSinceEpoch(), 17, 2, QStringLiteral("/v1/loads")});
    DecodeBatchPanel *panel = d.dashboard->decodePanel();
    d.drawNow();
    EXPECT_TRUE(panel->showsLiveLoads(decodeName));
    ASSERT_GT(panel->chart()->pointCount(QStringLiteral("running requests")), 0);
    EXPECT_EQ(panel->chart()->drawnPoints(QStringLiteral("running requests")).back().y(), 17);
    EXPECT_TRUE(panel->latestText().startsWith(
        QStringLiteral("running 17 · waiting 2 — live from /v1/loads")))
        << panel->latestText().toStdString();
    EXPECT_TRUE(panel->toolTip().contains(QStringLiteral("/v1/loads of decode-0")));
}

TEST(MetricsDashboard, DecodePanelShowsTheGaugesAgeWhenOnlyMetricsExist)
{
    Dashboard d;
    // The gauge last changed 8 s ago (SGLang refreshes it every 40 decode steps).
    d.feed({{decodeName, QStringLiteral("running"), 30, [](int) { return 12; },
             QStringLiteral("sglang:num_running_reqs")},
            {decodeName, QStringLiteral("waiting"), 30, [](int) { return 1; },
             QStringLiteral("sglang:num_queue_reqs")}},
           8000);
    DecodeBatchPanel *panel = d.dashboard->decodePanel();
    d.drawNow();
    EXPECT_FALSE(panel->showsLiveLoads(decodeName));
    EXPECT_EQ(panel->chart()->pointCount(QStringLiteral("running requests")), 30);
    EXPECT_EQ(panel->chart()->drawnPoints(QStringLiteral("running requests")).back().y(), 12);
    static const QRegularExpression age(
        QStringLiteral("^running 12 · waiting 1 — from sglang:num_running_reqs, unchanged (8|9) "
                       "s, refreshed every 40 decode steps, 30 s when idle$"));
    EXPECT_TRUE(age.match(panel->latestText()).hasMatch()) << panel->latestText().toStdString();
    EXPECT_TRUE(panel->toolTip().contains(QStringLiteral("--decode-log-interval")));
    keepScreenshot(panel, QStringLiteral("decode-gauge"));
}

TEST(MetricsDashboard, DecodeDrillDownToOneRankDrawsThatRank)
{
    Dashboard d;
    d.feed({{decodeName, QStringLiteral("running"), 30, [](int) { return 10; },
             QStringLiteral("sglang:num_running_reqs")},
            {decodeName, QStringLiteral("running{dp_rank=\"0\"}"), 30, [](int) { return 3; },
             QStringLiteral("sglang:num_running_reqs")},
            {decodeName, QStringLiteral("running{dp_rank=\"1\"}"), 20, [](int i) { return i; },
             QStringLiteral("sglang:num_running_reqs")},
            {decodeName, QStringLiteral("waiting{dp_rank=\"1\"}"), 20, [](int) { return 4; },
             QStringLiteral("sglang:num_queue_reqs")}});
    DecodeBatchPanel *panel = d.dashboard->decodePanel();
    d.drawNow();
    QComboBox *ranks = panel->rankSelector();
    ASSERT_EQ(ranks->count(), 3);
    EXPECT_TRUE(ranks->isVisibleTo(panel));
    EXPECT_EQ(ranks->itemText(0), QStringLiteral("all ranks"));
    EXPECT_EQ(ranks->itemText(2), QStringLiteral("dp 1"));

    // As the user does: pick "dp 1" in the combo.
    ranks->setCurrentIndex(2);
    Q_EMIT ranks->activated(2);
    panel->chart()->flush();
    EXPECT_EQ(panel->selectedRank(), 1);
    EXPECT_EQ(panel->chart()->pointCount(QStringLiteral("running requests")), 20);
    EXPECT_EQ(panel->chart()->drawnPoints(QStringLiteral("running requests")).back().y(), 19);
    EXPECT_TRUE(panel->latestText().startsWith(QStringLiteral("dp 1: running 19 · waiting 4")))
        << panel->latestText().toStdString();

    panel->selectRank(-1);
    panel->chart()->flush();
    EXPECT_EQ(panel->chart()->drawnPoints(QStringLiteral("running requests")).back().y(), 10);
}

TEST(MetricsDashboard, EmptyPanelsShowAPlaceholderNotABlankChart)
{
    Dashboard d;
    d.drawNow();
    for (SeriesPanel *panel : d.dashboard->panels()) {
        SCOPED_TRACE(panel->title().toStdString());
        EXPECT_TRUE(panel->isShowingPlaceholder());
        EXPECT_FALSE(panel->placeholderText().isEmpty());
    }
    keepScreenshot(d.dashboard->findChild<QScrollArea *>()->widget(), QStringLiteral("empty"));
    LatencyPanel *latency = d.dashboard->latencyPanel();
    EXPECT_EQ(latency->placeholderText(),
              QStringLiteral("no TTFT observations in the last minute"));
    latency->setLatency(LatencyPanel::Latency::Itl);
    EXPECT_EQ(latency->placeholderText(), QStringLiteral("no ITL observations in the last minute"));

    // One observation brings the chart back, and only to its own panel.
    d.feed({{decodeName, QStringLiteral("itl_p50_s"), 3, [](int) { return 0.012; },
             QStringLiteral("sglang:inter_token_latency_seconds")}});
    d.drawNow();
    EXPECT_FALSE(latency->isShowingPlaceholder());
    EXPECT_EQ(latency->chart()->pointCount(QStringLiteral("p50 · decode-0")), 3);
    EXPECT_TRUE(d.dashboard->throughputPanel()->isShowingPlaceholder());
}

TEST(MetricsDashboard, RedrawsOnlyOnTheTimerAndOnlyForItsOwnSeries)
{
    Dashboard d;
    d.drawNow();
    ThroughputPanel *throughput = d.dashboard->throughputPanel();
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    // 1,000 samples in one go: nothing is drawn per sample...
    for (int i = 0; i < 1000; ++i)
        d.window.append(decodeName, QStringLiteral("generation_tokens_per_s"), now - 1000 + i, i);
    throughput->chart()->flush();
    EXPECT_EQ(throughput->chart()->pointCount(QStringLiteral("generation · decode-0")), 0);
    // ...the panel's 250 ms timer draws them once.
    EXPECT_TRUE(waitUntil([&] { return !throughput->isShowingPlaceholder(); }, 3s));
    throughput->chart()->flush();
    EXPECT_GT(throughput->chart()->pointCount(QStringLiteral("generation · decode-0")), 0);
    // A series no panel shows does not wake the router panel.
    d.window.append(routerName, QStringLiteral("health_latency_ms"), now, 3);
    EXPECT_TRUE(d.dashboard->routerHealthPanel()->isShowingPlaceholder());
}

TEST(MetricsDashboard, AStoppedSeriesAxisMovesOnWithTheOthers)
{
    Dashboard d;
    d.drawNow();
    ThroughputPanel *throughput = d.dashboard->throughputPanel();
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    // Throughput stopped a minute ago (a killed decode); another series goes on.
    for (int i = 0; i < 30; ++i)
        d.window.append(decodeName, QStringLiteral("generation_tokens_per_s"),
                        now - 90'000 + i * 1000, 5);
    for (int i = 0; i < 90; ++i)
        d.window.append(prefillName, QStringLiteral("prefill_bootstrap_queue"),
                        now - 90'000 + i * 1000, 0);
    EXPECT_TRUE(waitUntil([&] { return throughput->chart()->visibleEndMs() >= now - 1000; }, 5s))
        << "the axis ends at " << (now - throughput->chart()->visibleEndMs()) << " ms ago";
    // Its last reading is stale: "—", not the old number.
    EXPECT_TRUE(
        waitUntil([&] { return throughput->latestText().contains(QStringLiteral("—")); }, 5s))
        << throughput->latestText().toStdString();
    // No unit after a reading that is not there.
    EXPECT_FALSE(throughput->latestText().contains(QStringLiteral(") tokens/s")))
        << throughput->latestText().toStdString();
}

TEST(MetricsDashboard, MarkersReachEveryChartAndSurviveANewInventory)
{
    Dashboard d;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    d.dashboard->setMarkers({{now - 60'000, QStringLiteral("restart"), QStringLiteral("decode")},
                             {now - 5'000, QStringLiteral("knob"), QStringLiteral("reverted")}});
    opsdeck::inventory::Inventory bigger = pdInventory();
    bigger.services.append(service(QStringLiteral("decode-1"), Role::Decode));
    d.dashboard->setInventory(bigger);
    for (SeriesPanel *panel : d.dashboard->panels()) {
        SCOPED_TRACE(panel->title().toStdString());
        EXPECT_EQ(panel->chart()->markerCount(), 2);
    }
    EXPECT_EQ(d.dashboard->decodePanel()->series().size(), 4);
}

TEST(MetricsDashboard, UsesTwoColumnsWhenWideAndOneAt1000Px)
{
    for (const int width : {1600, 1000}) {
        Dashboard d(width);
        d.feed(realisticPd());
        d.dashboard->noteLoad(
            {decodeName, QDateTime::currentMSecsSinceEpoch(), 13, 0, QStringLiteral("/v1/loads")});
        d.drawNow();
        QCoreApplication::processEvents();
        d.drawNow();
        const auto xOf = [&](QWidget *panel) {
            return panel->mapTo(d.dashboard.get(), QPoint()).x();
        };
        const int throughputX = xOf(d.dashboard->throughputPanel());
        const int latencyX = xOf(d.dashboard->latencyPanel());
        if (width >= 1200) {
            EXPECT_GT(latencyX, throughputX + 500);
            // PD queues and failures side by side under the pairs.
            EXPECT_GT(xOf(d.dashboard->pdQueuesPanel()->failures()),
                      xOf(d.dashboard->pdQueuesPanel()->queues()) + 500);
        } else {
            EXPECT_EQ(latencyX, throughputX);
        }
        // Every plot keeps a readable width.
        for (SeriesPanel *panel : d.dashboard->panels())
            EXPECT_GT(panel->chart()->plotWidthPx(), 400) << panel->title().toStdString();
        const QPixmap shot = d.dashboard->grab();
        EXPECT_FALSE(shot.isNull());
        // The whole content, not just the scrolled viewport.
        keepScreenshot(d.dashboard->findChild<QScrollArea *>()->widget(), QString::number(width));
    }
}
