// HistoryRecorder: which series each poller result becomes, into both the
// writer and the hot window; results come one by one or as the poller's
// batches (PollAnswers, as the console connects it).
#include "historyrecorder.h"
#include "historystore.h"
#include "historywriter.h"
#include "hotwindow.h"

#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace opsdeck;
using namespace opsdeck::history;

TEST(HistoryRecorder, TurnsPollerResultsIntoSeries)
{
    QTemporaryDir dir;
    const QString path = HistoryStore::pathIn(dir.path());
    HistoryWriter::Settings settings;
    settings.retention.rawMs = settings.retention.rollupMs = std::numeric_limits<qint64>::max() / 4;
    HistoryWriter writer(path, settings);
    QString error;
    ASSERT_TRUE(writer.start(&error)) << error.toStdString();
    HotWindow window;
    HistoryRecorder recorder(nullptr, &writer, &window);

    const qint64 t = 1'700'000'040'000;
    probes::ServiceStatus healthy;
    healthy.name = QStringLiteral("decode");
    healthy.state = probes::ServiceState::Healthy;
    healthy.httpStatus = 200;
    healthy.latencyMs = 0.75;
    healthy.lastCheck = QDateTime::fromMSecsSinceEpoch(t, Qt::UTC);
    probes::ServiceStatus refused = healthy;
    refused.state = probes::ServiceState::Down;
    refused.httpStatus = 0;
    refused.latencyMs = 0.1; // time to the refusal: not a latency worth charting
    refused.lastCheck = QDateTime::fromMSecsSinceEpoch(t + 1000, Qt::UTC);
    probes::PollAnswers answers;
    answers.statuses = {healthy, refused};
    answers.loads = {{QStringLiteral("decode"), t, 19, 3, QStringLiteral("/v1/loads")}};
    recorder.recordAnswers(answers);

    probes::MetricsSnapshot snapshot;
    snapshot.service = QStringLiteral("decode");
    snapshot.timeMs = t + 500;
    snapshot.values = {{QStringLiteral("kv_usage"), QStringLiteral("ratio"), 0.42, t - 30'000,
                        QStringLiteral("sglang:token_usage"), QString(), QString(), QString()},
                       {QStringLiteral("running{dp_rank=\"1\"}"), QStringLiteral("requests"), 7, t,
                        QStringLiteral("sglang:num_running_reqs"), QString(), QString(),
                        QString()}};
    recorder.recordMetrics(snapshot);
    probes::MetricsSnapshot failed = snapshot;
    failed.timeMs = t + 1500;
    failed.error = QStringLiteral("decode: HTTP 500");
    probes::PollAnswers later;
    later.snapshots = {failed};
    recorder.recordAnswers(later);
    writer.stop();

    HistoryStore store(path);
    ASSERT_TRUE(store.open());
    auto values = [&](const QString &key) {
        QVector<double> out;
        for (const Sample &s : store.rawSamples(QStringLiteral("decode"), key, 0, t + 10'000))
            out.append(s.value);
        return out;
    };
    EXPECT_EQ(values(QStringLiteral("up")), (QVector<double>{1, 0}));
    EXPECT_EQ(values(QStringLiteral("health_latency_ms")), (QVector<double>{0.75}));
    EXPECT_EQ(values(QStringLiteral("live_running")), (QVector<double>{19}));
    EXPECT_EQ(values(QStringLiteral("live_waiting")), (QVector<double>{3}));
    EXPECT_EQ(values(QStringLiteral("kv_usage")), (QVector<double>{0.42}))
        << "the failed scrape is not recorded";
    const auto kv =
        store.rawSamples(QStringLiteral("decode"), QStringLiteral("kv_usage"), 0, t + 10'000);
    ASSERT_EQ(kv.size(), 1);
    EXPECT_EQ(kv[0].timeMs, t + 500) << "recorded at the scrape time";
    EXPECT_EQ(values(QStringLiteral("running{dp_rank=\"1\"}")), (QVector<double>{7}));
    QHash<QString, QString> units;
    for (const SeriesInfo &info : store.seriesList())
        units.insert(info.key, info.unit);
    EXPECT_EQ(units.value(QStringLiteral("up")), QStringLiteral("boolean"));
    EXPECT_EQ(units.value(QStringLiteral("health_latency_ms")), QStringLiteral("ms"));
    EXPECT_EQ(units.value(QStringLiteral("kv_usage")), QStringLiteral("ratio"));

    EXPECT_EQ(window.points(QStringLiteral("decode"), QStringLiteral("up")).size(), 2);
    EXPECT_EQ(window.points(QStringLiteral("decode"), QStringLiteral("kv_usage")).size(), 1);
    EXPECT_EQ(recorder.samplesRecorded(), 3 + 2 + 2);
}
