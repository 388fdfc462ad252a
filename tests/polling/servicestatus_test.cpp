// Health classification, /v1/loads parsing and the status table model.
#include "loadsample.h"
#include "probe.h"
#include "servicestatusmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <gtest/gtest.h>

using namespace opsdeck::probes;
using opsdeck::inventory::Role;
using opsdeck::inventory::Service;

TEST(ClassifyHealth, FollowsTheObservedDefinitions)
{
    EXPECT_EQ(classifyHealth(ServiceState::Unknown, 0), ServiceState::Down);
    EXPECT_EQ(classifyHealth(ServiceState::Healthy, 0), ServiceState::Down);
    EXPECT_EQ(classifyHealth(ServiceState::Unknown, 503), ServiceState::Starting);
    EXPECT_EQ(classifyHealth(ServiceState::Down, 503), ServiceState::Starting);
    EXPECT_EQ(classifyHealth(ServiceState::Starting, 503), ServiceState::Starting);
    EXPECT_EQ(classifyHealth(ServiceState::Starting, 200), ServiceState::Healthy);
    // 503 after it had been healthy is a problem, not a start.
    EXPECT_EQ(classifyHealth(ServiceState::Healthy, 503), ServiceState::Unhealthy);
    EXPECT_EQ(classifyHealth(ServiceState::Unknown, 500), ServiceState::Unhealthy);
    EXPECT_EQ(classifyHealth(ServiceState::Healthy, 404), ServiceState::Unhealthy);
}

TEST(ClassifyHealth, AnAcceptedConnectionWithoutAnAnswerIsUnresponsiveNotDown)
{
    EXPECT_EQ(classifyHealth(ServiceState::Healthy, 0, true), ServiceState::Unresponsive);
    EXPECT_EQ(classifyHealth(ServiceState::Unknown, 0, false), ServiceState::Down);
    EXPECT_EQ(stateName(ServiceState::Unresponsive), QStringLiteral("unresponsive"));
    ProbeResult silent;
    silent.timedOut = true;
    silent.connectMs = 0.2; // connected, then nothing came
    EXPECT_TRUE(acceptedWithoutAnswer(silent));
    ProbeResult unreachable = silent;
    unreachable.connectMs = 0; // the connect itself timed out
    EXPECT_FALSE(acceptedWithoutAnswer(unreachable));
    ProbeResult refused;
    refused.error = QStringLiteral("Couldn't connect to server");
    EXPECT_FALSE(acceptedWithoutAnswer(refused));
}

TEST(ParseLoads, SumsEveryDpRankWhateverTheWrapping)
{
    const auto list = parseLoads(R"([{"dp_rank":0,"num_running_reqs":5,"num_waiting_reqs":1},
                                     {"dp_rank":1,"num_running_reqs":7,"num_waiting_reqs":2}])");
    ASSERT_TRUE(list);
    EXPECT_EQ(list->running, 12);
    EXPECT_EQ(list->waiting, 3);
    EXPECT_EQ(list->source, QStringLiteral("/v1/loads"));

    const auto wrapped = parseLoads(R"({"loads":[{"num_running_reqs":3,"num_waiting_reqs":0}]})");
    ASSERT_TRUE(wrapped);
    EXPECT_EQ(wrapped->running, 3);

    EXPECT_FALSE(parseLoads("not json"));
    EXPECT_FALSE(parseLoads(R"({"status":"ok"})"));
}

TEST(ServiceStatusModel, PassesTheModelTesterAndChangesOneRowAtATime)
{
    ServiceStatusModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    Service prefill;
    prefill.name = QStringLiteral("prefill");
    prefill.role = Role::Prefill;
    prefill.url = QUrl(QStringLiteral("http://127.0.0.1:30000"));
    Service decode = prefill;
    decode.name = QStringLiteral("decode");
    decode.role = Role::Decode;
    decode.url = QUrl(QStringLiteral("http://127.0.0.1:30001"));
    model.setServices({prefill, decode});
    ASSERT_EQ(model.rowCount(), 2);
    EXPECT_EQ(model.data(model.index(1, ServiceStatusModel::StateColumn)).toString(),
              QStringLiteral("unknown"));
    EXPECT_EQ(model.data(model.index(1, ServiceStatusModel::AddressColumn)).toString(),
              QStringLiteral("127.0.0.1:30001"));

    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    ServiceStatus status;
    status.name = QStringLiteral("decode");
    status.role = Role::Decode;
    status.url = decode.url;
    status.state = ServiceState::Healthy;
    status.latencyMs = 1.24;
    status.lastChange = QDateTime::currentDateTimeUtc();
    model.updateStatus(status);
    ASSERT_EQ(changed.size(), 1);
    EXPECT_EQ(changed.first().at(0).value<QModelIndex>().row(), 1);
    EXPECT_EQ(changed.first().at(1).value<QModelIndex>().row(), 1);
    EXPECT_EQ(model.data(model.index(1, ServiceStatusModel::StateColumn)).toString(),
              QStringLiteral("healthy"));
    EXPECT_EQ(model.data(model.index(1, ServiceStatusModel::LatencyColumn)).toString(),
              QStringLiteral("1.2 ms"));

    status.name = QStringLiteral("gone"); // a stale result of a service no longer listed
    model.updateStatus(status);
    EXPECT_EQ(changed.size(), 1);

    // A poll that only moved the latency signals that one cell, with its roles.
    status.name = QStringLiteral("decode");
    status.latencyMs = 3.5;
    model.updateStatus(status);
    ASSERT_EQ(changed.size(), 2);
    const QModelIndex topLeft = changed.last().at(0).value<QModelIndex>();
    const QModelIndex bottomRight = changed.last().at(1).value<QModelIndex>();
    EXPECT_EQ(topLeft.column(), ServiceStatusModel::LatencyColumn);
    EXPECT_EQ(bottomRight.column(), ServiceStatusModel::LatencyColumn);
    const auto roles = changed.last().at(2).value<QList<int>>();
    EXPECT_TRUE(roles.contains(Qt::DisplayRole));
    EXPECT_TRUE(roles.contains(ServiceStatusModel::LatencyMsRole));
    EXPECT_FALSE(roles.contains(ServiceStatusModel::StateRole)) << "the state did not change";
}

TEST(ServiceStatusModel, SinceTextUsesReadableUnits)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    EXPECT_EQ(ServiceStatusModel::sinceText(now.addSecs(-12), now), QStringLiteral("12 s"));
    EXPECT_EQ(ServiceStatusModel::sinceText(now.addSecs(-600), now), QStringLiteral("10 min"));
    EXPECT_EQ(ServiceStatusModel::sinceText(now.addSecs(-3 * 3600), now), QStringLiteral("3 h"));
    EXPECT_EQ(ServiceStatusModel::sinceText(QDateTime(), now), QStringLiteral("–"));
}
