// knobDrift: a serve script against a process's environment and arguments
// as /proc gives them.
#include "inventory.h"
#include "knobdrift.h"

#include <gtest/gtest.h>

using namespace opsdeck;
using knobs::KnobDrift;

namespace {

const KnobDrift *find(const QVector<KnobDrift> &items, const QString &name)
{
    for (const KnobDrift &item : items)
        if (item.name == name)
            return &item;
    return nullptr;
}

} // namespace

TEST(KnobDrift, EachKnobIsInSyncOrSaysThatARestartIsNeeded)
{
    const knobs::ServeScript script = knobs::ServeScript::parse(
        "export A=1\nexport B=$A/x\nexport NEW=2\nLOCAL=3\n"
        "exec python3 -m sglang.launch_server --port 30002 --max-running-requests 64 "
        "--enable-metrics\n");
    knobs::ProcessView process;
    process.pid = 42;
    process.environmentRead = true;
    process.environment = {{u"A"_qs, u"1"_qs},
                           {u"B"_qs, u"1/x"_qs},
                           {u"SGLANG_SM120_MMA_TARGET_CTAS"_qs, u"512"_qs},
                           {u"PATH"_qs, u"/usr/bin"_qs}};
    process.arguments = {u"python3"_qs,
                         u"-m"_qs,
                         u"sglang.launch_server"_qs,
                         u"--port"_qs,
                         u"30002"_qs,
                         u"--max-running-requests"_qs,
                         u"96"_qs,
                         u"--enable-metrics"_qs};
    const QVector<KnobDrift> drift = knobs::knobDrift(script, process);
    ASSERT_TRUE(find(drift, u"A"_qs));
    EXPECT_EQ(find(drift, u"A"_qs)->state, KnobDrift::State::InSync);
    EXPECT_EQ(find(drift, u"B"_qs)->state, KnobDrift::State::InSync) << "$A expanded";
    EXPECT_EQ(find(drift, u"NEW"_qs)->says(),
              u"script says 2, process runs without it — restart needed to take effect"_qs);
    EXPECT_EQ(find(drift, u"LOCAL"_qs), nullptr) << "not exported: the server never sees it";
    EXPECT_EQ(find(drift, u"--port"_qs)->state, KnobDrift::State::InSync);
    EXPECT_EQ(find(drift, u"--max-running-requests"_qs)->says(),
              u"script says 64, process runs with 96 — restart needed to take effect"_qs);
    EXPECT_EQ(find(drift, u"--enable-metrics"_qs)->state, KnobDrift::State::InSync);
    const KnobDrift *stale = find(drift, u"SGLANG_SM120_MMA_TARGET_CTAS"_qs);
    ASSERT_TRUE(stale);
    EXPECT_EQ(stale->state, KnobDrift::State::OnlyInProcess);
    EXPECT_EQ(find(drift, u"PATH"_qs), nullptr) << "an inherited variable is no knob";

    process.environmentRead = false;
    process.environment.clear();
    const QVector<KnobDrift> flagsOnly = knobs::knobDrift(script, process);
    EXPECT_EQ(find(flagsOnly, u"A"_qs), nullptr) << "not compared without the environment";
    EXPECT_TRUE(find(flagsOnly, u"--max-running-requests"_qs)->drifted());
}

// What /proc gave, as the host script prints it: an environment another user's
// process keeps to itself is said, not taken as empty.
TEST(ProcessView, AnUnreadableEnvironmentIsSaidAndFlagsAreStillRead)
{
    remote::CommandResult result;
    result.outcome = remote::CommandResult::Outcome::Exited;
    result.exitCode = 0;
    result.standardOutput = "pid=4242\ncmdline=" +
                            QByteArray("python3\0-m\0sglang.launch_server\0--port\0"
                                       "30002\0",
                                       45)
                                .toBase64() +
                            "\nenviron!\n";
    const knobs::ProcessView view = knobs::ProcessView::parse(result, u"gpu-1"_qs);
    EXPECT_EQ(view.pid, 4242);
    EXPECT_EQ(view.arguments.size(), 5);
    EXPECT_FALSE(view.environmentRead);
    EXPECT_TRUE(view.problem.contains(u"host gpu-1: the environment of pid 4242 cannot be read"_qs))
        << view.problem.toStdString();

    result.exitCode = 4;
    result.standardOutput = "no process: nothing this user can see listens on port 30002\n";
    const knobs::ProcessView none = knobs::ProcessView::parse(result, u"gpu-1"_qs);
    EXPECT_EQ(none.pid, 0);
    EXPECT_TRUE(none.problem.contains(u"listens on port 30002"_qs));
}

// `sudo -n` only where the inventory's host says `sudo: true`.
TEST(ProcessView, SudoOnlyWhenTheHostAllowsIt)
{
    EXPECT_FALSE(knobs::ProcessView::request(u"/run/decode.pid"_qs, 30002, false).sudo);
    EXPECT_TRUE(knobs::ProcessView::request(u"/run/decode.pid"_qs, 30002, true).sudo);
    const auto loaded = inventory::parseInventory(
        "hosts:\n  - {name: a, kind: local}\n  - {name: b, kind: local, sudo: true}\n",
        u"/x.yaml"_qs);
    ASSERT_TRUE(loaded.inventory.has_value());
    EXPECT_FALSE(loaded.inventory->host(u"a"_qs)->sudo);
    EXPECT_TRUE(loaded.inventory->host(u"b"_qs)->sudo);
}
