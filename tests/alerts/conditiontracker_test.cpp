// ConditionTracker: raise after the hold, once; clear when the condition is
// gone; missing samples change nothing; the grace for counters.
#include "conditiontracker.h"

#include <gtest/gtest.h>

using opsdeck::alerts::ConditionTracker;
using Change = ConditionTracker::Change;

TEST(ConditionTracker, RaisesOnceAfterTheHoldAndClearsWhenTheConditionIsGone)
{
    ConditionTracker tracker(60'000);
    for (int s = 0; s < 60; ++s)
        ASSERT_EQ(tracker.update(s * 1000, true), Change::None) << "at " << s << " s";
    EXPECT_FALSE(tracker.raised());
    EXPECT_EQ(tracker.update(60'000, true), Change::Raised);
    EXPECT_EQ(tracker.update(61'000, true), Change::None) << "raised once";
    EXPECT_EQ(tracker.sinceMs(), 0);
    EXPECT_EQ(tracker.update(62'000, false), Change::Cleared);
    EXPECT_EQ(tracker.update(63'000, false), Change::None) << "cleared once";
}

TEST(ConditionTracker, MissingSamplesNeitherClearNorRestart)
{
    ConditionTracker tracker(10'000);
    EXPECT_EQ(tracker.update(0, true), Change::None);
    EXPECT_EQ(tracker.update(5'000, std::nullopt), Change::None);
    EXPECT_EQ(tracker.update(10'000, true), Change::Raised) << "the streak kept its start";
    EXPECT_EQ(tracker.update(11'000, std::nullopt), Change::None);
    EXPECT_TRUE(tracker.raised());
}

TEST(ConditionTracker, AFalseSampleRestartsTheStreak)
{
    ConditionTracker tracker(10'000);
    tracker.update(0, true);
    tracker.update(5'000, false);
    EXPECT_EQ(tracker.update(6'000, true), Change::None);
    EXPECT_EQ(tracker.update(15'000, true), Change::None) << "only 9 s since the restart";
    EXPECT_EQ(tracker.update(16'000, true), Change::Raised);
    EXPECT_EQ(tracker.sinceMs(), 6'000);
}

TEST(ConditionTracker, GraceBridgesShortGapsOnly)
{
    ConditionTracker tracker(30'000, 10'000);
    // A failure every 5 s with quiet seconds between: one streak.
    for (int s = 0; s <= 30; ++s) {
        const Change change = tracker.update(s * 1000, s % 5 == 0);
        ASSERT_EQ(change, s == 30 ? Change::Raised : Change::None) << "at " << s << " s";
    }
    EXPECT_EQ(tracker.update(39'000, false), Change::None) << "9 s after the last failure";
    EXPECT_EQ(tracker.update(40'000, false), Change::Cleared) << "10 s after it";
}

TEST(ConditionTracker, OlderSamplesAreIgnored)
{
    ConditionTracker tracker(0);
    EXPECT_EQ(tracker.update(10'000, true), Change::Raised);
    EXPECT_EQ(tracker.update(9'000, false), Change::None);
    EXPECT_TRUE(tracker.raised());
}
