// Restarting one side of a PD pair (issue 20): with nixl the pair looks
// healthy but every KV transfer hangs until both sides were restarted; with
// mooncake a single-side restart recovers by itself.
#include "pdcluster.h"
#include "testsupport.h"

#include <gtest/gtest.h>

using namespace opsdeck::test;
using namespace std::chrono_literals;

namespace {

PdCluster::Options backend(const QString &name)
{
    PdCluster::Options options;
    options.backend = name;
    return options;
}

/// Waits until `sim` has logged `text` (its stderr is read while the event
/// loop runs) and returns how often it did.
int loggedCount(SimProcess &sim, const QString &text)
{
    waitUntil([&] { return sim.errorText().contains(text); }, 5s);
    return static_cast<int>(sim.errorText().count(text));
}

/// Sends chats through the router until one answers 200, at most 3; the last reply.
HttpReply chatUntilOk(const PdCluster &cluster)
{
    HttpReply reply;
    for (int attempt = 0; attempt < 3 && reply.status != 200; ++attempt)
        reply = cluster.chat();
    return reply;
}

/// Two chats through the router while one side holds stale nixl metadata:
/// both fail after the decode's transfer timeout (not at once, not 200),
/// each counted as a transfer failure, and both engines still answer /health 200.
void expectTransfersHang(PdCluster &cluster)
{
    ASSERT_TRUE(waitUntil([&] { return cluster.enginesHealthy(); }, 10s));
    ASSERT_TRUE(waitUntil([&] { return cluster.readiness() == 200; }, 10s))
        << "the router must see both workers healthy";
    const double before = cluster.decodeTransferFailures();
    for (int i = 0; i < 2; ++i) {
        const HttpReply reply = cluster.chat();
        EXPECT_GE(reply.status, 500) << reply.body;
        EXPECT_GE(reply.seconds, 0.4) << "the transfer hangs until --kv-transfer-timeout 0.5";
        EXPECT_NE(reply.body.find("KV transfer failed"), std::string::npos) << reply.body;
    }
    EXPECT_EQ(cluster.decodeTransferFailures(), before + 2);
    EXPECT_TRUE(cluster.enginesHealthy()) << "a hung pair still reports /health 200";
    EXPECT_EQ(cluster.readiness(), 200);
}

} // namespace

TEST(simRestart, NixlPrefillOnlyRestartHangsTransfersUntilTheDecodeIsRestartedToo)
{
    PdCluster cluster(backend(QStringLiteral("nixl")));
    ASSERT_TRUE(cluster.start()) << cluster.router().errorText().toStdString();
    ASSERT_EQ(cluster.chat().status, 200) << "the pair works before any restart";

    ASSERT_TRUE(cluster.restartPrefill()) << cluster.prefill().errorText().toStdString();
    expectTransfersHang(cluster);
    EXPECT_EQ(loggedCount(cluster.decode(),
                          QStringLiteral("nixl: stale agent metadata for prefill 127.0.0.1:%1 "
                                         "(instance ")
                              .arg(cluster.bootstrapPort())),
              1)
        << "logged once per peer: " << cluster.decode().errorText().toStdString();
    EXPECT_EQ(
        loggedCount(cluster.decode(), QStringLiteral("): transfers hang until both sides restart")),
        1);

    ASSERT_TRUE(cluster.restartDecode()) << cluster.decode().errorText().toStdString();
    ASSERT_TRUE(waitUntil([&] { return cluster.readiness() == 200; }, 10s));
    const HttpReply reply = chatUntilOk(cluster);
    EXPECT_EQ(reply.status, 200) << reply.body;
    EXPECT_EQ(cluster.decodeTransferFailures(), 0.0);
    EXPECT_FALSE(cluster.decode().errorText().contains(QStringLiteral("stale agent metadata")));
}

TEST(simRestart, NixlDecodeOnlyRestartHangsTransfersUntilThePrefillIsRestartedToo)
{
    PdCluster cluster(backend(QStringLiteral("nixl")));
    ASSERT_TRUE(cluster.start()) << cluster.router().errorText().toStdString();
    ASSERT_EQ(cluster.chat().status, 200);

    ASSERT_TRUE(cluster.restartDecode()) << cluster.decode().errorText().toStdString();
    expectTransfersHang(cluster);
    EXPECT_EQ(loggedCount(cluster.prefill(),
                          QStringLiteral("nixl: stale agent metadata for decode %1 (instance ")
                              .arg(cluster.decodeUrl().mid(7))),
              1)
        << cluster.prefill().errorText().toStdString();

    ASSERT_TRUE(cluster.restartPrefill()) << cluster.prefill().errorText().toStdString();
    ASSERT_TRUE(waitUntil([&] { return cluster.readiness() == 200; }, 10s));
    const double failures = cluster.decodeTransferFailures();
    const HttpReply reply = chatUntilOk(cluster);
    EXPECT_EQ(reply.status, 200) << reply.body;
    EXPECT_EQ(cluster.decodeTransferFailures(), failures);
}

TEST(simRestart, MooncakePrefillOnlyRestartRecoversByItself)
{
    PdCluster cluster(backend(QStringLiteral("mooncake")));
    ASSERT_TRUE(cluster.start()) << cluster.router().errorText().toStdString();
    ASSERT_EQ(cluster.chat().status, 200);

    ASSERT_TRUE(cluster.restartPrefill()) << cluster.prefill().errorText().toStdString();
    ASSERT_TRUE(waitUntil([&] { return cluster.readiness() == 200; }, 10s));
    for (int i = 0; i < 2; ++i) {
        const HttpReply reply = chatUntilOk(cluster);
        EXPECT_EQ(reply.status, 200) << reply.body;
    }
    EXPECT_EQ(cluster.decodeTransferFailures(), 0.0) << "no transfer hung";
    EXPECT_EQ(loggedCount(cluster.decode(),
                          QStringLiteral("mooncake: prefill 127.0.0.1:%1 restarted (instance ")
                              .arg(cluster.bootstrapPort())),
              1)
        << cluster.decode().errorText().toStdString();
    EXPECT_FALSE(cluster.decode().errorText().contains(QStringLiteral("stale agent metadata")));
}
