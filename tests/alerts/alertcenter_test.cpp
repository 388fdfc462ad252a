// AlertCenter, the banner's model: one alert per key, oldest first, changed()
// on every change and only then.
#include "alertcenter.h"

#include <QSignalSpy>
#include <gtest/gtest.h>

using namespace opsdeck::alerts;
using opsdeck::inventory::AlertKind;

namespace {

Alert alert(AlertKind kind, const char *target, const char *text)
{
    return Alert{kind, QString::fromUtf8(target), 1000, 2000, QString::fromUtf8(text)};
}

} // namespace

TEST(AlertCenter, HoldsActiveAlertsForTheBanner)
{
    AlertCenter center;
    QSignalSpy changed(&center, &AlertCenter::changed);
    QSignalSpy raised(&center, &AlertCenter::alertRaised);
    EXPECT_TRUE(center.bannerText().isEmpty());

    center.raise(alert(AlertKind::SchedulerStuck, "decode", "decode is stuck"));
    EXPECT_EQ(center.bannerText(), QStringLiteral("decode is stuck"));
    center.raise(alert(AlertKind::E2eFailing, "main", "probe failed"));
    EXPECT_EQ(center.bannerText(), QStringLiteral("2 alerts: decode is stuck | probe failed"));
    // The same key again replaces, it does not add.
    center.raise(alert(AlertKind::SchedulerStuck, "decode", "decode is still stuck"));
    ASSERT_EQ(center.active().size(), 2);
    EXPECT_EQ(center.active()[0].text, QStringLiteral("decode is still stuck"));
    EXPECT_EQ(changed.count(), 3);
    EXPECT_EQ(raised.count(), 3);

    center.clear(alert(AlertKind::SchedulerStuck, "decode", "runs again"));
    EXPECT_EQ(center.bannerText(), QStringLiteral("probe failed"));
    center.clear(alert(AlertKind::SchedulerStuck, "decode", "runs again"));
    EXPECT_EQ(changed.count(), 4) << "clearing what is not active changes nothing";
    center.clearAll();
    EXPECT_TRUE(center.isEmpty());
    EXPECT_EQ(changed.count(), 5);
}

TEST(AlertCenter, TitlesNameTheRuleAndTarget)
{
    EXPECT_EQ(alert(AlertKind::SchedulerStuck, "decode", "").title(),
              QStringLiteral("Scheduler stuck: decode"));
    EXPECT_EQ(alert(AlertKind::E2eFailing, "main", "").title(),
              QStringLiteral("End-to-end probe failing: main"));
    EXPECT_EQ(alert(AlertKind::FailuresRising, "main", "").title(),
              QStringLiteral("PD failures rising: main"));
    EXPECT_EQ(alert(AlertKind::FailuresRising, "main", "").key(),
              QStringLiteral("failures_rising:main"));
}
