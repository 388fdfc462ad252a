// From inventory rules to watched targets: the defaults cover every decode
// and engine service and every cluster; the e2e entry is the router, else
// the proxy, else the first decode.
#include "alertwatch.h"

#include <QByteArray>
#include <gtest/gtest.h>

using namespace opsdeck;
using namespace opsdeck::alerts;
using inventory::AlertKind;

namespace {

inventory::Inventory load(const char *alerts)
{
    QByteArray yaml("hosts: [{name: h, kind: local}]\n"
                    "services:\n"
                    "  - {name: p1, role: prefill, host: h, url: 'http://127.0.0.1:1'}\n"
                    "  - {name: d1, role: decode, host: h, url: 'http://127.0.0.1:2'}\n"
                    "  - {name: r1, role: router, host: h, url: 'http://127.0.0.1:3'}\n"
                    "  - {name: x1, role: proxy, host: h, url: 'http://127.0.0.1:4'}\n"
                    "  - {name: p2, role: prefill, host: h, url: 'http://127.0.0.1:5'}\n"
                    "  - {name: d2, role: decode, host: h, url: 'http://127.0.0.1:6'}\n"
                    "  - {name: x2, role: proxy, host: h, url: 'http://127.0.0.1:7'}\n"
                    "  - {name: p3, role: prefill, host: h, url: 'http://127.0.0.1:8'}\n"
                    "  - {name: d3, role: decode, host: h, url: 'http://127.0.0.1:9'}\n"
                    "  - {name: e, role: engine, host: h, url: 'http://127.0.0.1:10'}\n"
                    "clusters:\n"
                    "  - {name: one, prefill: [p1], decode: [d1], router: r1, proxy: x1}\n"
                    "  - {name: two, prefill: [p2], decode: [d2], proxy: x2}\n"
                    "  - {name: three, prefill: [p3], decode: [d3]}\n");
    yaml += alerts;
    const inventory::LoadResult result =
        inventory::parseInventory(yaml, QStringLiteral("watch.yaml"));
    EXPECT_TRUE(result.errors.isEmpty())
        << (result.errors.isEmpty() ? std::string() : result.errors[0].toString().toStdString());
    return result.inventory.value_or(inventory::Inventory{});
}

QStringList keys(const QVector<AlertWatch> &watches)
{
    QStringList list;
    for (const AlertWatch &w : watches)
        list.append(w.key());
    return list;
}

} // namespace

TEST(AlertWatch, DefaultRulesWatchEveryDecodeEngineAndCluster)
{
    const QVector<AlertWatch> watches = AlertWatch::fromInventory(load(""));
    EXPECT_EQ(
        keys(watches),
        QStringList({QStringLiteral("scheduler_stuck:d1"), QStringLiteral("scheduler_stuck:d2"),
                     QStringLiteral("scheduler_stuck:d3"), QStringLiteral("scheduler_stuck:e"),
                     QStringLiteral("e2e_failing:one"), QStringLiteral("e2e_failing:two"),
                     QStringLiteral("e2e_failing:three"), QStringLiteral("failures_rising:one"),
                     QStringLiteral("failures_rising:two"),
                     QStringLiteral("failures_rising:three")}));
    EXPECT_EQ(watches[0].forS, 60);
    EXPECT_EQ(watches[0].services, QStringList{QStringLiteral("d1")});
    EXPECT_EQ(watches[4].entry.name, QStringLiteral("r1")) << "the router when there is one";
    EXPECT_EQ(watches[4].entry.url, QUrl(QStringLiteral("http://127.0.0.1:3")));
    EXPECT_EQ(watches[5].entry.name, QStringLiteral("x2")) << "else the proxy";
    EXPECT_EQ(watches[6].entry.name, QStringLiteral("d3")) << "else the first decode";
    EXPECT_EQ(watches[7].services, QStringList({QStringLiteral("p1"), QStringLiteral("d1")}));
    EXPECT_EQ(watches[7].forS, 30);
}

TEST(AlertWatch, ExplicitRulesNarrowTheTargetsAndTheFirstRuleWins)
{
    const QVector<AlertWatch> watches =
        AlertWatch::fromInventory(load("alerts:\n"
                                       "  rules:\n"
                                       "    - {kind: scheduler_stuck, service: d2, for_s: 5}\n"
                                       "    - {kind: scheduler_stuck, for_s: 90}\n"
                                       "    - {kind: failures_rising, cluster: two, for_s: 7}\n"));
    EXPECT_EQ(
        keys(watches),
        QStringList({QStringLiteral("scheduler_stuck:d2"), QStringLiteral("scheduler_stuck:d1"),
                     QStringLiteral("scheduler_stuck:d3"), QStringLiteral("scheduler_stuck:e"),
                     QStringLiteral("failures_rising:two")}));
    EXPECT_EQ(watches[0].forS, 5);
    EXPECT_EQ(watches[1].forS, 90);
    EXPECT_EQ(watches[4].forS, 7);
}
