// The Knobs tab in the window: a serve script's knobs with their lines; an
// edit previewed as a diff, applied only once the production service's name
// is typed (backup, audit entry, write; the table then reads the new value);
// an inventory that is not armed previews and says why it applies nothing.
// A watchdog fails a test whose GUI thread stalls over 1 s.
#include "auditlog.h"
#include "guiwatchdog.h"
#include "knobeditdialog.h"
#include "knobstab.h"
#include "knobtablemodel.h"
#include "mainwindow.h"
#include "serviceknobs.h"
#include "testsupport.h"

#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace opsdeck;
using namespace std::chrono_literals;
using opsdeck::test::waitUntil;

namespace {

const QByteArray decodeScript = "#!/usr/bin/env bash\n"
                                "export SGLANG_SM120_MMA_TARGET_CTAS=512\n"
                                "exec python3 -m sglang.launch_server --port 30002 \\\n"
                                "  --max-running-requests 64\n";

struct KnobsFixture
{
    QTemporaryDir dir;
    QString script;

    QString inventory(bool armed)
    {
        script = dir.filePath(QStringLiteral("serve_decode.sh"));
        if (!QFile::exists(script))
            test::writeFile(script, decodeScript);
        // A port nothing listens on: the process is "not running".
        return test::writeInventory(
            dir, QStringLiteral("armed: %1\nhosts:\n  - name: gpu-1\n    kind: local\n"
                                "services:\n  - name: decode\n    role: decode\n    host: gpu-1\n"
                                "    url: http://127.0.0.1:9\n    serve_script: %2\n"
                                "    tags: [production]\n")
                     .arg(armed ? QStringLiteral("true") : QStringLiteral("false"), script));
    }
};

int rowOf(const knobs::KnobTableModel *model, const QString &name)
{
    for (int row = 0; row < model->rowCount(); ++row)
        if (model->index(row, 0).data(knobs::KnobTableModel::NameRole).toString() == name)
            return row;
    return -1;
}

} // namespace

TEST(KnobsTab, AnEditIsPreviewedConfirmedByNameAndAppliedWithItsAuditEntry)
{
    KnobsFixture fixture;
    MainWindow window;
    window.setDataDir(fixture.dir.filePath(QStringLiteral("data")));
    window.resize(1280, 800);
    window.show();
    test::GuiWatchdog watchdog;
    ASSERT_TRUE(window.openInventory(fixture.inventory(true)));
    KnobsTab *tab = window.knobsTab();
    const knobs::KnobTableModel *model = window.session()->knobs()->model();
    ASSERT_TRUE(waitUntil(
        [&] { return rowOf(model, QStringLiteral("--max-running-requests")) >= 0; }, 10s));
    const int ctas = rowOf(model, QStringLiteral("SGLANG_SM120_MMA_TARGET_CTAS"));
    ASSERT_GE(ctas, 0);
    EXPECT_EQ(model->index(ctas, knobs::KnobTableModel::Line).data().toInt(), 2);
    EXPECT_EQ(model->index(ctas, knobs::KnobTableModel::Value).data().toString(),
              QStringLiteral("512"));
    EXPECT_TRUE(
        model->index(ctas, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("SM120")))
        << "the catalog's help";
    ASSERT_TRUE(waitUntil(
        [&] {
            return model->index(ctas, knobs::KnobTableModel::Drift).data().toString() ==
                   QStringLiteral("not running");
        },
        10s));

    tab->table()->selectRow(ctas);
    tab->editButton()->click();
    KnobEditDialog *dialog = tab->dialog();
    ASSERT_TRUE(dialog);
    EXPECT_FALSE(dialog->applyButton()->isEnabled()) << "nothing previewed yet";
    dialog->valueEdit()->setText(QStringLiteral("256"));
    dialog->previewButton()->click();
    ASSERT_TRUE(waitUntil([&] { return !dialog->diffView()->toPlainText().isEmpty(); }, 10s));
    EXPECT_TRUE(dialog->diffView()->toPlainText().contains(
        QStringLiteral("+export SGLANG_SM120_MMA_TARGET_CTAS=256")));
    EXPECT_FALSE(dialog->applyButton()->isEnabled()) << "a production service needs its name";
    EXPECT_TRUE(dialog->statusLabel()->text().contains(QStringLiteral("Type decode")));
    EXPECT_EQ(test::readFile(fixture.script), decodeScript) << "a preview writes nothing";
    dialog->confirmEdit()->setText(QStringLiteral("decode"));
    ASSERT_TRUE(dialog->applyButton()->isEnabled());
    dialog->applyButton()->click();
    ASSERT_TRUE(waitUntil([&] { return tab->dialog() == nullptr; }, 15s))
        << "the dialog closes once applied";
    EXPECT_TRUE(test::readFile(fixture.script).contains("CTAS=256\n"));
    ASSERT_TRUE(waitUntil(
        [&] {
            const int row = rowOf(model, QStringLiteral("SGLANG_SM120_MMA_TARGET_CTAS"));
            return row >= 0 &&
                   model->index(row, knobs::KnobTableModel::Value).data().toString() == u"256";
        },
        10s));
    EXPECT_EQ(QDir(fixture.dir.path())
                  .entryList({QStringLiteral("serve_decode.sh.opsdeck-*.bak")})
                  .size(),
              1);
    ASSERT_TRUE(waitUntil([&] { return tab->backupBox()->count() == 1; }, 10s));
    history::AuditLog log(history::AuditLog::pathIn(fixture.dir.filePath(QStringLiteral("data"))));
    const QVector<history::AuditEntry> entries = log.read();
    ASSERT_GE(entries.size(), 2);
    EXPECT_EQ(entries.at(entries.size() - 2).action, QStringLiteral("edit"));
    EXPECT_EQ(entries.last().action, QStringLiteral("edited"));
    EXPECT_EQ(entries.last().kind, QStringLiteral("knob"));

    // What changed on the host in the last hour: the script just edited, and
    // decode's knob against the backup the edit made.
    tab->sinceEdit()->setText(QStringLiteral("1h"));
    tab->sinceEdit()->returnPressed();
    ASSERT_TRUE(waitUntil([&] { return !tab->changedView()->toPlainText().isEmpty(); }, 15s));
    const QString changed = tab->changedView()->toPlainText();
    EXPECT_TRUE(changed.contains(fixture.script)) << changed.toStdString();
    EXPECT_TRUE(changed.contains(QStringLiteral("~ SGLANG_SM120_MMA_TARGET_CTAS 512 → 256")))
        << changed.toStdString();
    EXPECT_LT(watchdog.worstStallMs(), 1000);
}

TEST(KnobsTab, AnInventoryThatIsNotArmedPreviewsAndSaysWhyItAppliesNothing)
{
    KnobsFixture fixture;
    MainWindow window;
    window.setDataDir(fixture.dir.filePath(QStringLiteral("data")));
    window.show();
    ASSERT_TRUE(window.openInventory(fixture.inventory(false)));
    KnobsTab *tab = window.knobsTab();
    const knobs::KnobTableModel *model = window.session()->knobs()->model();
    ASSERT_TRUE(waitUntil([&] { return model->rowCount() > 0; }, 10s));
    EXPECT_TRUE(tab->stateLabel()->text().contains(QStringLiteral("is not armed")));
    tab->table()->selectRow(rowOf(model, QStringLiteral("SGLANG_SM120_MMA_TARGET_CTAS")));
    tab->commentButton()->click();
    ASSERT_TRUE(waitUntil([&] { return tab->dialog() != nullptr; }, 10s));
    KnobEditDialog *dialog = tab->dialog();
    EXPECT_TRUE(dialog->diffView()->toPlainText().contains(
        QStringLiteral("+# export SGLANG_SM120_MMA_TARGET_CTAS=512")));
    dialog->confirmEdit()->setText(QStringLiteral("decode"));
    EXPECT_FALSE(dialog->applyButton()->isEnabled());
    EXPECT_TRUE(dialog->applyButton()->toolTip().contains(QStringLiteral("not armed")));
    // Asked directly, the model refuses too: the guard is not only the button's.
    QSignalSpy problems(window.session()->knobs(), &knobs::ServiceKnobs::problem);
    knobs::KnobFiles::Plan plan;
    plan.path = fixture.script;
    window.session()->knobs()->apply(plan, QStringLiteral("decode"));
    ASSERT_EQ(problems.size(), 1);
    EXPECT_TRUE(problems.first().at(0).toString().contains(QStringLiteral("not armed")));
    EXPECT_EQ(test::readFile(fixture.script), decodeScript);
}
