// WorkflowGuard: each guard refuses, in order, and says what to type.
#include "evidence.h"
#include "workflowguard.h"

#include <gtest/gtest.h>

using namespace opsdeck::workflows;

namespace {

WorkflowPlan planFor(const QString &service, bool production = false)
{
    WorkflowPlan plan;
    plan.kind = WorkflowKind::Restart;
    plan.inventoryPath = QStringLiteral("/i.yaml");
    plan.cluster = QStringLiteral("pd");
    plan.service = service;
    plan.production = production;
    return plan;
}

} // namespace

TEST(WorkflowGuard, ReadOnlyRefusesWhateverIsTyped)
{
    const QString why = WorkflowGuard::refusal(planFor(QStringLiteral("d1")), false,
                                               {QStringLiteral("d1"), QStringLiteral("r"), false});
    EXPECT_TRUE(why.startsWith(u"/i.yaml is read-only (armed: false)")) << why.toStdString();
}

TEST(WorkflowGuard, TheTypedNameMustBeTheTargetsExactly)
{
    const WorkflowPlan plan = planFor(QStringLiteral("d1"));
    EXPECT_EQ(WorkflowGuard::refusal(plan, true, {}),
              QStringLiteral("restart changes d1: type \"d1\" to confirm (--confirm d1)"));
    EXPECT_EQ(WorkflowGuard::refusal(plan, true, {QStringLiteral("D1"), {}, false}),
              QStringLiteral("the confirmation does not match: type \"d1\" to confirm, \"D1\" was "
                             "typed"));
    EXPECT_FALSE(WorkflowGuard::refusal(plan, true, {QStringLiteral("pd"), {}, false}).isEmpty())
        << "the cluster's name does not confirm a service's restart";
    EXPECT_TRUE(WorkflowGuard::refusal(plan, true, {QStringLiteral("d1"), {}, false}).isEmpty());
    // A cluster-wide workflow is confirmed with the cluster's name.
    EXPECT_TRUE(
        WorkflowGuard::refusal(planFor({}), true, {QStringLiteral("pd"), {}, false}).isEmpty());
}

TEST(WorkflowGuard, ProductionNeedsAReasonAndAPlanningRefusalComesFirst)
{
    WorkflowPlan plan = planFor(QStringLiteral("d1"), true);
    EXPECT_EQ(
        WorkflowGuard::refusal(plan, true, {QStringLiteral("d1"), QStringLiteral("  "), false}),
        QStringLiteral("d1 touches production: give a reason (--reason TEXT)"));
    EXPECT_TRUE(
        WorkflowGuard::refusal(plan, true, {QStringLiteral("d1"), QStringLiteral("hung"), false})
            .isEmpty());
    plan.refusal = QStringLiteral("nixl pair");
    EXPECT_EQ(
        WorkflowGuard::refusal(plan, true, {QStringLiteral("d1"), QStringLiteral("hung"), false}),
        QStringLiteral("nixl pair"));
}

// The evidence points at the connection layer while the decodes' queue is
// no longer than the diagnosis's own probes (a loaded host keeps them a
// scheduler step); a real queue could explain the stall, and then it does not.
TEST(Evidence, AQueueNoLongerThanTheDiagnosisOwnProbesStillPointsAtTheProxy)
{
    Evidence evidence;
    evidence.nowMs = 1'000'000;
    evidence.stallAtMs = evidence.nowMs - 60'000;
    opsdeck::probes::Diagnosis stall;
    stall.hop = QStringLiteral("proxy-0");
    stall.role = opsdeck::inventory::Role::Proxy;
    stall.decodeWaitingMax = 2;
    evidence.stall = stall;
    EXPECT_TRUE(evidence.pointsAtConnectionLayer());
    evidence.stall->decodeWaitingMax = 20;
    EXPECT_FALSE(evidence.pointsAtConnectionLayer());
    EXPECT_TRUE(evidence.connectionLayerWarning(QStringLiteral("x")).isEmpty());
}
