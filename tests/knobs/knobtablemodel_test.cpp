// KnobTableModel under QAbstractItemModelTester: rows of a script, drift
// filled in later, warnings and the catalog's help as tooltips.
#include "knobtablemodel.h"

#include <QAbstractItemModelTester>
#include <gtest/gtest.h>

using namespace opsdeck;
using knobs::KnobTableModel;

TEST(KnobTableModel, RowsDriftAndTooltipsKeepTheModelContract)
{
    KnobTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    const knobs::ServeScript script = knobs::ServeScript::parse(
        "export SGLANG_SM120_MMA_TARGET_CTAS=512\r\nexport A=1\r\n"
        "exec python3 -m sglang.launch_server --max-running-requests 64\r\n");
    model.setScript(script);
    ASSERT_EQ(model.rowCount(), 3);
    EXPECT_EQ(model.index(0, KnobTableModel::Drift).data().toString(),
              QStringLiteral("reading the process…"));
    EXPECT_TRUE(
        model.index(0, 0)
            .data(Qt::ToolTipRole)
            .toString()
            .contains(QStringLiteral("bash reads SGLANG_SM120_MMA_TARGET_CTAS as \"512\\r\"")));
    EXPECT_TRUE(model.index(0, 0).data(KnobTableModel::WarnedRole).toBool());

    knobs::ProcessView process;
    process.pid = 7;
    process.environmentRead = true;
    process.environment = {{QStringLiteral("SGLANG_SM120_MMA_TARGET_CTAS"), QStringLiteral("256")},
                           {QStringLiteral("A"), QStringLiteral("1")}};
    process.arguments = {QStringLiteral("python3"), QStringLiteral("-m"),
                         QStringLiteral("sglang.launch_server"),
                         QStringLiteral("--max-running-requests"), QStringLiteral("64")};
    model.setDrift(knobs::knobDrift(script, process), true, {});
    EXPECT_EQ(model.driftCount(), 1);
    EXPECT_TRUE(model.index(0, KnobTableModel::Drift).data(KnobTableModel::DriftedRole).toBool());
    EXPECT_EQ(model.index(1, KnobTableModel::Drift).data().toString(), QStringLiteral("in sync"));
    model.clear();
    EXPECT_EQ(model.rowCount(), 0);
}
