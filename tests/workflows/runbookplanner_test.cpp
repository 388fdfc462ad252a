// RunbookPlanner: the order of the steps, the exact commands, the warnings
// and the refusals each runbook plans, from an inventory in YAML.
#include "runbookplanner.h"

#include <QJsonArray>
#include <gtest/gtest.h>

using namespace opsdeck;
using workflows::RunbookPlanner;
using workflows::WorkflowKind;
using workflows::WorkflowPlan;
using workflows::WorkflowStep;

namespace {

// A PD cluster with two prefills and two decodes behind a router and a proxy.
QByteArray inventoryText(const char *backend = "mooncake", const char *decodeTags = "[]")
{
    QByteArray text = "armed: true\nhosts:\n  - {name: gpu-1, kind: local}\nservices:\n";
    const auto service = [&](const char *name, const char *role, int port, const char *tags) {
        text += QByteArrayLiteral("  - name: ") + name + "\n    role: " + role +
                "\n    host: gpu-1\n    url: http://127.0.0.1:" + QByteArray::number(port) +
                "\n    pid_file: /run/" + name + ".pid\n    start: start-" + name +
                "\n    tags: " + tags + "\n";
    };
    service("p1", "prefill", 30001, "[]");
    service("p2", "prefill", 30002, "[]");
    service("d1", "decode", 30011, decodeTags);
    service("d2", "decode", 30012, "[]");
    service("router", "router", 30100, "[]");
    service("proxy", "proxy", 30200, "[]");
    text +=
        QByteArrayLiteral("clusters:\n  - name: pd\n    prefill: [p1, p2]\n    decode: [d1, d2]\n"
                          "    router: router\n    proxy: proxy\n    transfer_backend: ") +
        backend + "\n";
    return text;
}

inventory::Inventory load(const QByteArray &text)
{
    const inventory::LoadResult loaded = inventory::parseInventory(text, QStringLiteral("/i.yaml"));
    if (!loaded.inventory) {
        ADD_FAILURE() << loaded.errors.first().toString().toStdString();
        return {};
    }
    return *loaded.inventory;
}

WorkflowPlan plan(const inventory::Inventory &inventory, WorkflowKind kind,
                  const QString &service = {})
{
    QString error;
    const auto planned =
        RunbookPlanner::plan(inventory, {kind, QStringLiteral("pd"), service, {}, {}, {}}, &error);
    if (!planned) {
        ADD_FAILURE() << error.toStdString();
        return {};
    }
    return *planned;
}

// "action:service" of every leaf, in order.
QStringList shape(const WorkflowPlan &plan)
{
    QStringList out;
    for (const WorkflowStep *step : plan.leaves())
        out << workflows::actionName(step->action) + u':' + step->service;
    return out;
}

int indexOf(const QStringList &list, const char *item)
{
    return int(list.indexOf(QString::fromLatin1(item)));
}

} // namespace

TEST(RunbookPlanner, CoRestartStopsEveryDecodeBeforeAnyPrefillAndStartsThemTheOtherWay)
{
    const WorkflowPlan p = plan(load(inventoryText()), WorkflowKind::CoRestart);
    const QStringList s = shape(p);
    ASSERT_EQ(s.size(), 20) << s.join(u' ').toStdString();
    EXPECT_EQ(s.first(), QStringLiteral("check-bootstrap:router"));
    // Verified, then the failure counters watched for the default 30 s.
    EXPECT_EQ(s.at(18), QStringLiteral("verify:"));
    EXPECT_EQ(s.last(), QStringLiteral("watch-failures:"));
    EXPECT_EQ(p.leaves().last()->watchS, 30);
    EXPECT_EQ(p.leaves().last()->commands.size(), 4) << "each engine's /metrics";
    // Every decode stops before any prefill; both exit before anything starts.
    for (const char *decode : {"stop:d1", "stop:d2"})
        for (const char *prefill : {"stop:p1", "stop:p2"})
            EXPECT_LT(indexOf(s, decode), indexOf(s, prefill));
    for (const char *exit :
         {"wait-exited:d1", "wait-exited:d2", "wait-exited:p1", "wait-exited:p2"}) {
        EXPECT_GT(indexOf(s, exit), indexOf(s, "stop:p2"));
        EXPECT_LT(indexOf(s, exit), indexOf(s, "start:p1"));
    }
    // Every prefill healthy with its bootstrap port before any decode starts.
    for (const char *prefill : {"wait-bootstrap:p1", "wait-bootstrap:p2"})
        for (const char *decode : {"start:d1", "start:d2"})
            EXPECT_LT(indexOf(s, prefill), indexOf(s, decode));
    EXPECT_EQ(s.at(s.size() - 3), QStringLiteral("router-ready:router"));
    // Numbered 1..N in that order; the decodes' stops run at once.
    const QVector<const WorkflowStep *> leaves = p.leaves();
    for (int i = 0; i < leaves.size(); ++i)
        EXPECT_EQ(leaves.at(i)->n, i + 1);
    const QJsonArray steps = p.json().value(QStringLiteral("steps")).toArray();
    EXPECT_EQ(steps.at(1).toObject().value(QStringLiteral("parallel")).toString(),
              QStringLiteral("stop every decode"));
    EXPECT_EQ(p.confirmationTarget(), QStringLiteral("pd"));
    EXPECT_FALSE(p.production);
    EXPECT_TRUE(p.refusal.isEmpty());
}

TEST(RunbookPlanner, ThePlanSaysEveryCommandOnANumberedLine)
{
    const WorkflowPlan p = plan(load(inventoryText()), WorkflowKind::Restart, QStringLiteral("d1"));
    const QString text = p.text();
    EXPECT_TRUE(text.startsWith(u"restart of d1 in cluster pd (type \"d1\" to confirm)\n"))
        << text.toStdString();
    EXPECT_TRUE(text.contains(u"\n1. stop d1 on gpu-1: kill -TERM \"$(cat '/run/d1.pid')\""))
        << text.toStdString();
    EXPECT_TRUE(text.contains(u"\n3. start d1 on gpu-1: start-d1"));
    EXPECT_TRUE(text.contains(u"\n4. wait until d1 is healthy: GET http://127.0.0.1:30011/health "
                              "until 200"));
    EXPECT_TRUE(text.contains(u"WARNING: d1 is the decode side of a PD pair"));
    const QJsonObject json = p.json();
    for (const char *key : {"kind", "cluster", "steps", "evidence", "warnings"})
        EXPECT_TRUE(json.contains(QLatin1String(key))) << key;
    const QJsonObject first = json.value(QStringLiteral("steps")).toArray().first().toObject();
    for (const char *key : {"n", "title", "host", "commands", "deadline_s", "rollback"})
        EXPECT_TRUE(first.contains(QLatin1String(key))) << key;
    EXPECT_EQ(first.value(QStringLiteral("host")).toString(), QStringLiteral("gpu-1"));
    EXPECT_EQ(first.value(QStringLiteral("rollback")).toString(), QStringLiteral("start d1"));
    EXPECT_TRUE(text.contains(u"'/run/d1.pid')\"; after 60 s: kill -KILL the same pid  ["))
        << text.toStdString();
}

// Without a pid file there is no pid to kill: the plan does not promise one.
TEST(RunbookPlanner, AStopWithoutAPidFilePromisesNoKill)
{
    QByteArray text = inventoryText();
    text.replace("    pid_file: /run/router.pid\n", "    stop: systemctl stop router\n"
                                                    "    status: systemctl is-active router\n");
    const QString said = plan(load(text), WorkflowKind::Restart, QStringLiteral("router")).text();
    EXPECT_TRUE(said.contains(u"\n1. stop router on gpu-1: systemctl stop router; after 70 s: "
                              "failed if its status still says it runs (no pid file: nothing to "
                              "kill)  ["))
        << said.toStdString();
    EXPECT_FALSE(said.contains(u"kill -KILL")) << said.toStdString();
}

TEST(RunbookPlanner, OneSideOfANixlPairIsRefusedAndCoRestartIsNot)
{
    const inventory::Inventory nixl = load(inventoryText("nixl"));
    const WorkflowPlan single = plan(nixl, WorkflowKind::Restart, QStringLiteral("p1"));
    EXPECT_TRUE(single.refusal.contains(u"nixl")) << single.refusal.toStdString();
    EXPECT_TRUE(single.refusal.contains(u"co-restart --cluster pd"));
    EXPECT_TRUE(plan(nixl, WorkflowKind::CoRestart).refusal.isEmpty());
    // The router and the proxy are not one side of a pair.
    EXPECT_TRUE(plan(nixl, WorkflowKind::Restart, QStringLiteral("router")).refusal.isEmpty());
    EXPECT_TRUE(plan(nixl, WorkflowKind::RestartProxy).refusal.isEmpty());
    // With mooncake one side only warns.
    const WorkflowPlan mooncake =
        plan(load(inventoryText()), WorkflowKind::Restart, QStringLiteral("p1"));
    EXPECT_TRUE(mooncake.refusal.isEmpty());
    EXPECT_FALSE(mooncake.warnings.isEmpty());
}

TEST(RunbookPlanner, ProductionAndBadRequestsAreSaidByName)
{
    const inventory::Inventory inv = load(inventoryText("mooncake", "[production]"));
    EXPECT_TRUE(plan(inv, WorkflowKind::CoRestart).production);
    EXPECT_TRUE(plan(inv, WorkflowKind::Restart, QStringLiteral("d1")).production);
    EXPECT_FALSE(plan(inv, WorkflowKind::Restart, QStringLiteral("d2")).production);
    QString error;
    EXPECT_FALSE(RunbookPlanner::plan(
        inv, {WorkflowKind::Restart, QStringLiteral("nope"), {}, {}, {}, {}}, &error));
    EXPECT_EQ(error, QStringLiteral("no cluster 'nope' in /i.yaml"));
    EXPECT_FALSE(RunbookPlanner::plan(
        inv, {WorkflowKind::Restart, QStringLiteral("pd"), {}, {}, {}, {}}, &error));
    EXPECT_TRUE(error.startsWith(u"restart needs --service")) << error.toStdString();
    EXPECT_FALSE(RunbookPlanner::plan(
        inv, {WorkflowKind::Restart, QStringLiteral("pd"), QStringLiteral("other"), {}, {}, {}},
        &error));
    EXPECT_EQ(error, QStringLiteral("service 'other' is not in cluster pd"));
    // A service OpsDeck cannot start again is never stopped by a plan.
    QByteArray text = inventoryText();
    text.replace("    start: start-d2\n", "");
    EXPECT_FALSE(RunbookPlanner::plan(
        load(text), {WorkflowKind::CoRestart, QStringLiteral("pd"), {}, {}, {}, {}}, &error));
    EXPECT_TRUE(error.contains(u"service d2 has no `start` command")) << error.toStdString();
}

// Drained: every engine leaves the router before any stops, and each is
// added back between its start and its health (a prefill before its
// bootstrap check, which needs the router to list it). Only engines behind
// a router are drained; restart-proxy and a router's restart refuse it.
TEST(RunbookPlanner, ADrainedCoRestartTakesTheEnginesOutOfTheRouterFirstAndPutsThemBack)
{
    const inventory::Inventory inventory = load(inventoryText());
    QString error;
    const auto planned = RunbookPlanner::plan(
        inventory, {WorkflowKind::CoRestart, QStringLiteral("pd"), {}, {}, {}, {}, true}, &error);
    ASSERT_TRUE(planned) << error.toStdString();
    const QStringList s = shape(*planned);
    for (const char *engine : {"d1", "d2", "p1", "p2"}) {
        const QString drain = QStringLiteral("drain:") + QLatin1String(engine);
        const QString added = QStringLiteral("register:") + QLatin1String(engine);
        ASSERT_GE(s.indexOf(drain), 0) << s.join(u' ').toStdString();
        EXPECT_LT(s.indexOf(drain), indexOf(s, "stop:d1"));
        EXPECT_GT(s.indexOf(added), s.indexOf(QStringLiteral("start:") + QLatin1String(engine)));
    }
    EXPECT_LT(indexOf(s, "register:p1"), indexOf(s, "wait-bootstrap:p1"));
    EXPECT_LT(indexOf(s, "register:d1"), indexOf(s, "wait-healthy:d1"));
    EXPECT_LT(indexOf(s, "register:d2"), indexOf(s, "router-ready:router"));
    const QString text = planned->text();
    EXPECT_TRUE(text.contains(u"DELETE http://127.0.0.1:30100/workers/{http://127.0.0.1:30011, "
                              u"encoded}"_qs))
        << text.toStdString();
    // A drain that times out lets the restart go on.
    for (const WorkflowStep *step : planned->leaves()) {
        if (step->action == WorkflowStep::Action::Drain) {
            EXPECT_EQ(step->onError, WorkflowStep::OnError::Continue);
        }
    }

    const auto single = RunbookPlanner::plan(
        inventory,
        {WorkflowKind::Restart, QStringLiteral("pd"), QStringLiteral("d1"), {}, {}, {}, true},
        &error);
    ASSERT_TRUE(single) << error.toStdString();
    EXPECT_EQ(shape(*single).mid(0, 6),
              QStringList({u"drain:d1"_qs, u"stop:d1"_qs, u"wait-exited:d1"_qs, u"start:d1"_qs,
                           u"register:d1"_qs, u"wait-healthy:d1"_qs}));

    EXPECT_FALSE(RunbookPlanner::plan(
        inventory, {WorkflowKind::RestartProxy, QStringLiteral("pd"), {}, {}, {}, {}, true},
        &error));
    EXPECT_TRUE(error.contains(u"drain belongs to restart and co-restart"_qs))
        << error.toStdString();
    EXPECT_FALSE(RunbookPlanner::plan(
        inventory,
        {WorkflowKind::Restart, QStringLiteral("pd"), QStringLiteral("router"), {}, {}, {}, true},
        &error));
    EXPECT_TRUE(error.contains(u"only engines are drained"_qs)) << error.toStdString();
}
