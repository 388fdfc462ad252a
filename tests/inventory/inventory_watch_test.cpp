// The `watch:` section (the background keep-alive watch), its durations and
// the `no-watch` service tag.
#include "duration.h"
#include "inventorytest.h"

namespace opsdeck::inventory::test {
namespace {

TEST(Duration, SecondsMillisecondsMinutesAndHours)
{
    EXPECT_EQ(parseDurationS(QStringLiteral("90")), 90.0);
    EXPECT_EQ(parseDurationS(QStringLiteral("90s")), 90.0);
    EXPECT_EQ(parseDurationS(QStringLiteral("1.5s")), 1.5);
    EXPECT_EQ(parseDurationS(QStringLiteral("500ms")), 0.5);
    EXPECT_EQ(parseDurationS(QStringLiteral("10m")), 600.0);
    EXPECT_EQ(parseDurationS(QStringLiteral("1h")), 3600.0);
    // Read two ways, or not at all: a sign, a space inside, a bare dot, an exponent.
    for (const char *bad : {"", "s", "-1s", "ten", "1d", "nan", "inf", "1 h x", "+60s", "6 0s",
                            "60 s", "60.s", ".5s", "1e3", "0x10"})
        EXPECT_FALSE(parseDurationS(QString::fromLatin1(bad))) << bad;
}

TEST(InventoryWatch, DefaultsWithoutASectionAndValuesWithOne)
{
    LoadResult result = parse(R"(
hosts: [{name: h, kind: local}]
services:
  - {name: e, role: engine, host: h, url: 'http://127.0.0.1:1'}
  - {name: p, role: proxy, host: h, url: 'http://127.0.0.1:2', tags: [production, no-watch]}
)");
    ASSERT_TRUE(result.inventory) << dump(result);
    EXPECT_TRUE(result.inventory->watch.enabled);
    EXPECT_EQ(result.inventory->watch.intervalS, 60);
    EXPECT_EQ(result.inventory->watch.idleGapS, 10);
    EXPECT_TRUE(result.inventory->service(QStringLiteral("e"))->isWatched());
    EXPECT_FALSE(result.inventory->service(QStringLiteral("p"))->isWatched());

    result = parse(R"(
watch: {enabled: false, interval: 2m, idle_gap: 5s}
)");
    ASSERT_TRUE(result.inventory) << dump(result);
    EXPECT_FALSE(result.inventory->watch.enabled);
    EXPECT_EQ(result.inventory->watch.intervalS, 120);
    EXPECT_EQ(result.inventory->watch.idleGapS, 5);
}

TEST(InventoryWatch, BadValuesNameTheFieldAndItsPlace)
{
    const LoadResult result = parse(R"(
watch:
  interval: 5s
  idle_gap: soon
  enable: true
)");
    ASSERT_EQ(result.errors.size(), 3) << dump(result);
    EXPECT_TRUE(
        isError(result, 0, 2, 13, "watch.interval", "out of range (expected 10 s to 3600 s)"));
    EXPECT_TRUE(isError(result, 1, 3, 13, "watch.idle_gap", "'soon' is not a duration"));
    EXPECT_TRUE(isError(result, 2, 4, 3, "watch.enable", "unknown key 'enable'"));
}

TEST(InventoryWatch, AnIdleGapNotShorterThanTheIntervalIsRefused)
{
    const LoadResult result = parse(R"(
watch: {interval: 30s, idle_gap: 45s}
)");
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_TRUE(isError(result, 0, 1, 34, "watch.idle_gap",
                        "idle_gap (45 s) must be shorter than interval (30 s)"));
}

TEST(InventoryWatch, ANearMissOfAMeaningfulTagIsAnErrorOtherTagsAreFree)
{
    const LoadResult result = parse(R"(
hosts: [{name: h, kind: local}]
services:
  - {name: e, role: engine, host: h, url: 'http://127.0.0.1:1', tags: [nowatch, gpu-a, team-x]}
  - {name: p, role: proxy, host: h, url: 'http://127.0.0.1:2', tags: [Production]}
)");
    ASSERT_EQ(result.errors.size(), 2) << dump(result);
    EXPECT_TRUE(
        result.errors.at(0).message.contains(QStringLiteral("tag 'nowatch' is not 'no-watch'")))
        << dump(result);
    EXPECT_TRUE(result.errors.at(1).message.contains(
        QStringLiteral("tag 'Production' is not 'production'")))
        << dump(result);
}

TEST(InventoryWatch, AControlCharacterInAValueIsShownNotCutOff)
{
    const LoadResult result = parse("watch: {interval: \"6\\0s after\"}\n");
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_TRUE(result.errors.at(0).message.contains(QStringLiteral("'6\\x00s after'")))
        << dump(result);
}

} // namespace
} // namespace opsdeck::inventory::test
