// The inventory's `alerts:` section: defaults, every field, and each error
// with its file:line:column and field.
#include "inventory.h"

#include <QByteArray>
#include <gtest/gtest.h>
#include <string>

using namespace opsdeck::inventory;

namespace {

const QString file = QStringLiteral("alerts.yaml");

// Eight lines of services and clusters; the `alerts:` text given starts at line 9.
LoadResult parseAlerts(const char *alerts)
{
    std::string yaml = "hosts: [{name: h, kind: local}]\n"
                       "services:\n"
                       "  - {name: p, role: prefill, host: h, url: 'http://127.0.0.1:1'}\n"
                       "  - {name: d, role: decode, host: h, url: 'http://127.0.0.1:2'}\n"
                       "  - {name: r, role: router, host: h, url: 'http://127.0.0.1:3'}\n"
                       "  - {name: e, role: engine, host: h, url: 'http://127.0.0.1:4'}\n"
                       "clusters:\n"
                       "  - {name: c, prefill: [p], decode: [d], router: r}\n";
    yaml += alerts[0] == '\n' ? alerts + 1 : alerts;
    return parseInventory(QByteArray::fromStdString(yaml), file);
}

std::string dump(const LoadResult &result)
{
    std::string text;
    for (const ValidationError &error : result.errors)
        text += "\n  " + error.toString().toStdString();
    return text.empty() ? std::string(" (no errors)") : text;
}

} // namespace

TEST(AlertsInventory, WithoutASectionTheThreeRulesApplyToEverything)
{
    const LoadResult result = parseAlerts("");
    ASSERT_TRUE(result.inventory) << dump(result);
    const AlertSettings &alerts = result.inventory->alerts;
    EXPECT_EQ(alerts.e2eIntervalS, 30);
    EXPECT_EQ(alerts.e2eTimeoutS, 10);
    ASSERT_EQ(alerts.rules.size(), 3);
    EXPECT_EQ(alerts.rules[0].kind, AlertKind::SchedulerStuck);
    EXPECT_EQ(alerts.rules[0].forS, 60);
    EXPECT_EQ(alerts.rules[1].kind, AlertKind::E2eFailing);
    EXPECT_EQ(alerts.rules[1].forS, 0);
    EXPECT_EQ(alerts.rules[2].kind, AlertKind::FailuresRising);
    EXPECT_EQ(alerts.rules[2].forS, 30);
    for (const AlertRule &rule : alerts.rules) {
        EXPECT_TRUE(rule.service.isEmpty());
        EXPECT_TRUE(rule.cluster.isEmpty());
    }
}

TEST(AlertsInventory, EveryFieldIsRead)
{
    const LoadResult result = parseAlerts(R"(
alerts:
  e2e_interval_s: 5
  e2e_timeout_s: 3
  rules:
    - {kind: scheduler_stuck, service: d, for_s: 2}
    - {kind: scheduler_stuck, service: e}
    - {kind: e2e_failing, cluster: c}
    - {kind: failures_rising, for_s: 45}
)");
    ASSERT_TRUE(result.inventory) << dump(result);
    const AlertSettings &alerts = result.inventory->alerts;
    EXPECT_EQ(alerts.e2eIntervalS, 5);
    EXPECT_EQ(alerts.e2eTimeoutS, 3);
    ASSERT_EQ(alerts.rules.size(), 4);
    EXPECT_EQ(alerts.rules[0].service, QStringLiteral("d"));
    EXPECT_EQ(alerts.rules[0].forS, 2);
    EXPECT_EQ(alerts.rules[1].service, QStringLiteral("e"));
    EXPECT_EQ(alerts.rules[1].forS, 60) << "default hold";
    EXPECT_EQ(alerts.rules[2].kind, AlertKind::E2eFailing);
    EXPECT_EQ(alerts.rules[2].cluster, QStringLiteral("c"));
    EXPECT_EQ(alerts.rules[3].kind, AlertKind::FailuresRising);
    EXPECT_TRUE(alerts.rules[3].cluster.isEmpty());
    EXPECT_EQ(alerts.rules[3].forS, 45);
}

TEST(AlertsInventory, SettingsWithoutRulesKeepTheDefaultsAndAnEmptyListMeansNone)
{
    LoadResult result = parseAlerts("alerts: {e2e_interval_s: 0}\n");
    ASSERT_TRUE(result.inventory) << dump(result);
    EXPECT_EQ(result.inventory->alerts.e2eIntervalS, 0);
    EXPECT_EQ(result.inventory->alerts.rules.size(), 3);

    result = parseAlerts("alerts: {rules: []}\n");
    ASSERT_TRUE(result.inventory) << dump(result);
    EXPECT_TRUE(result.inventory->alerts.rules.isEmpty());
}

TEST(AlertsInventory, BadValuesAreReportedWithFileLineColumnAndField)
{
    const LoadResult result = parseAlerts(R"(
alerts:
  e2e_interval_s: -1
  rules:
    - {kind: scheduler_stuk, service: d}
    - {kind: e2e_failing, cluster: c, for_s: 10}
    - {kind: failures_rising, service: d}
    - {kind: scheduler_stuck, cluster: c}
    - {kind: scheduler_stuck, for: 5}
    - {kind: failures_rising, for_s: 0}
    - {service: d}
    - just-a-word
)");
    ASSERT_FALSE(result.inventory);
    const QStringList expected = {
        QStringLiteral("alerts.yaml:10:19: alerts.e2e_interval_s: -1 is out of range (expected 0 "
                       "to 86400)"),
        QStringLiteral("alerts.yaml:12:14: alerts.rules[0].kind: unknown alert kind "
                       "'scheduler_stuk' (expected scheduler_stuck, e2e_failing or "
                       "failures_rising)"),
        QStringLiteral("alerts.yaml:13:46: alerts.rules[1].for_s: e2e_failing fires on its "
                       "end-to-end probes' outcomes; it takes no for_s"),
        QStringLiteral("alerts.yaml:14:40: alerts.rules[2].service: failures_rising watches a "
                       "cluster: write 'cluster', not 'service'"),
        QStringLiteral("alerts.yaml:15:40: alerts.rules[3].cluster: scheduler_stuck watches a "
                       "decode service: write 'service', not 'cluster'"),
        QStringLiteral("alerts.yaml:16:31: alerts.rules[4].for: unknown key 'for' (did you mean "
                       "'for_s'?)"),
        QStringLiteral("alerts.yaml:17:38: alerts.rules[5].for_s: 0 is out of range (expected 1 "
                       "to 86400)"),
        QStringLiteral("alerts.yaml:18:7: alerts.rules[6].kind: missing required field 'kind'"),
        QStringLiteral("alerts.yaml:19:7: alerts.rules[7]: expected a mapping, found "
                       "'just-a-word'"),
    };
    QStringList actual;
    for (const ValidationError &error : result.errors)
        actual.append(error.toString());
    EXPECT_EQ(actual.join(u'\n').toStdString(), expected.join(u'\n').toStdString());
}

TEST(AlertsInventory, RuleTargetsMustExistAndFit)
{
    const LoadResult result = parseAlerts(R"(
alerts:
  rules:
    - {kind: scheduler_stuck, service: decod}
    - {kind: scheduler_stuck, service: r}
    - {kind: e2e_failing, cluster: main}
)");
    ASSERT_FALSE(result.inventory);
    const QStringList expected = {
        QStringLiteral("alerts.yaml:11:40: alerts.rules[0].service: no service named 'decod' "
                       "(decode and engine services: d, e)"),
        QStringLiteral("alerts.yaml:12:40: alerts.rules[1].service: service 'r' has role router; "
                       "scheduler_stuck watches a decode or engine service (decode and engine "
                       "services: d, e)"),
        QStringLiteral("alerts.yaml:13:36: alerts.rules[2].cluster: no cluster named 'main' "
                       "(clusters: c)"),
    };
    QStringList actual;
    for (const ValidationError &error : result.errors)
        actual.append(error.toString());
    EXPECT_EQ(actual.join(u'\n').toStdString(), expected.join(u'\n').toStdString());
}

TEST(AlertsInventory, TheSectionMustBeAMapping)
{
    const LoadResult result = parseAlerts("alerts: [scheduler_stuck]\n");
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_EQ(result.errors[0].toString(),
              QStringLiteral("alerts.yaml:9:9: alerts: expected a mapping, found a list"));
}
