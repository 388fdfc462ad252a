// KnobEditPlanner's restore-knob over the real local files: the bytes it
// plans to put back are the backup's bytes it checked against the journal,
// even when the backup is swapped between its two reads.
#include "knobeditplanner.h"
#include "knobfiles.h"
#include "localfiles.h"
#include "localtransport.h"
#include "revertrecord.h"
#include "testsupport.h"
#include "workflowjournal.h"

#include <QFile>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace opsdeck;
using knobs::KnobFiles;
using workflows::KnobEditPlanner;
using workflows::WorkflowJournal;
using workflows::WorkflowKind;
using workflows::WorkflowPlan;
using workflows::WorkflowStep;

namespace {

// A revert-knob of K on `script` recorded in `dataDir`'s journals, as the
// runner writes it: its edit step ended with the backup, its hash and the
// script's hash after the edit.
// `ended` false: killed between the edit step's start and its end. `id`
// orders journals (newest first by id).
void recordRevert(const QString &dataDir, const QString &script, const QString &backup,
                  const QByteArray &backupBytes, const QByteArray &scriptBytes,
                  const QString &id = QStringLiteral("20261204T101500Z-revert-knob-0001"),
                  bool ended = true)
{
    const WorkflowPlan plan = test::revertPlanOf(script);
    QString error;
    auto journal = WorkflowJournal::create(dataDir, plan, &error, id);
    ASSERT_TRUE(journal) << error.toStdString();
    ASSERT_TRUE(journal->append(
        {{QStringLiteral("event"), QStringLiteral("step-start")}, {QStringLiteral("n"), 1}},
        &error));
    if (!ended)
        return;
    ASSERT_TRUE(
        journal->append({{QStringLiteral("event"), QStringLiteral("step-end")},
                         {QStringLiteral("n"), 1},
                         {QStringLiteral("ok"), true},
                         {QStringLiteral("ms"), 5},
                         {QStringLiteral("detail"),
                          QStringLiteral("backup %1 (sha256 %2); the script's sha256 is now %3")
                              .arg(backup, QString::fromLatin1(KnobFiles::sha256(backupBytes)),
                                   QString::fromLatin1(KnobFiles::sha256(scriptBytes)))}},
                        &error));
    ASSERT_TRUE(journal->append({{QStringLiteral("event"), QStringLiteral("end")},
                                 {QStringLiteral("outcome"), QStringLiteral("succeeded")}},
                                &error));
}

// A script a revert-knob of K commented out, its backup, the journal of
// that revert and an inventory naming them, in a folder of its own.
class KnobEditPlannerRestore : public ::testing::Test
{
protected:
    void SetUp() override
    {
        ASSERT_TRUE(test::writeFile(m_script, kReverted));
        ASSERT_TRUE(test::writeFile(m_backup, kGood));
        ASSERT_NO_FATAL_FAILURE(recordRevert(m_dir.path(), m_script, m_backup, kGood, kReverted));
        m_inventory = test::inventoryServing(m_script, m_dir.path());
    }

    struct Planned
    {
        std::optional<QVector<WorkflowPlan::KnobEdit>> edits;
        QString error;
        bool swapped = false;
    };
    // restore-knob K on p, over the real local files; with `swapIn`, the
    // backup is replaced by those bytes as the first read of it answers.
    Planned planRestore(const QByteArray &swapIn)
    {
        remote::LocalFiles files;
        remote::LocalTransport transport;
        Planned out;
        // Connected before KnobFiles: runs first on each answer.
        QObject::connect(&files, &remote::RemoteFiles::fileFinished, &files,
                         [&](quint64, const remote::RemoteFileResult &result) {
                             if (!swapIn.isEmpty() && !out.swapped && result.data == kGood)
                                 out.swapped = test::writeFile(m_backup, swapIn);
                         });
        KnobFiles knobFiles(&files, &transport);
        bool answered = false;
        KnobEditPlanner::plan(
            m_inventory,
            {WorkflowKind::RestoreKnob,
             QStringLiteral("c"),
             QStringLiteral("p"),
             QStringLiteral("K"),
             {},
             m_dir.path(),
             {}},
            [&](const QString &) { return &knobFiles; },
            [&](const auto &edits, const QString &error) {
                out.edits = edits;
                out.error = error;
                answered = true;
            });
        EXPECT_TRUE(test::waitUntil([&] { return answered; }, std::chrono::seconds(10)))
            << "no answer within 10 s";
        return out;
    }

    static constexpr const char *kReverted = "#!/bin/bash\n# export K=512\nexec true\n";
    static constexpr const char *kGood = "#!/bin/bash\nexport K=512\nexec true\n";
    QTemporaryDir m_dir;
    QString m_script = m_dir.filePath(QStringLiteral("serve_p.sh"));
    QString m_backup = m_script + QStringLiteral(".opsdeck-20261204T101500Z.bak");
    inventory::Inventory m_inventory;
};

} // namespace

// Untouched, the recorded backup is planned back whole.
TEST_F(KnobEditPlannerRestore, ARecordedBackupIsPlannedBackWhole)
{
    const Planned planned = planRestore({});
    ASSERT_TRUE(planned.edits) << planned.error.toStdString();
    ASSERT_EQ(planned.edits->size(), 1);
    EXPECT_EQ(planned.edits->first().plan.after, QByteArray(kGood));
}

// The attack that once worked: a process swapping the backup for one with a
// line of its own, back and forth, won the race between the check of the
// backup's hash and the read the restore was planned from. Here the swap is
// made at the exact moment: as the checked read's answer arrives.
TEST_F(KnobEditPlannerRestore, ABackupSwappedBetweenItsCheckAndThePlanIsRefused)
{
    const Planned planned = planRestore("#!/bin/bash\nexport K=512\ntouch /tmp/owned\nexec true\n");
    EXPECT_TRUE(planned.swapped);
    EXPECT_FALSE(planned.edits) << "planned to write: "
                                << (planned.edits && !planned.edits->isEmpty()
                                        ? planned.edits->first().plan.after.toStdString()
                                        : std::string());
    EXPECT_TRUE(planned.error.contains(QStringLiteral("changed while it was read")))
        << planned.error.toStdString();
}

// A later revert killed mid-edit: its backup is not known, and the older
// revert's backup would put an older value back. Refused, naming it.
TEST_F(KnobEditPlannerRestore, ALaterRevertKilledMidEditIsNotSkippedForAnOlderOne)
{
    ASSERT_NO_FATAL_FAILURE(recordRevert(m_dir.path(), m_script, m_backup, kGood, kReverted,
                                         QStringLiteral("20261204T111500Z-revert-knob-0002"),
                                         false));
    const Planned planned = planRestore({});
    EXPECT_FALSE(planned.edits);
    EXPECT_TRUE(planned.error.contains(
        QStringLiteral("workflow 20261204T111500Z-revert-knob-0002 started editing %1 and never "
                       "recorded its end")
            .arg(m_script)))
        << planned.error.toStdString();
}

// A journal edited to name a file elsewhere as the backup: never put in place.
TEST_F(KnobEditPlannerRestore, AJournalNamingAFileThatIsNotABackupBesideTheScriptIsRefused)
{
    QTemporaryDir elsewhere;
    const QString evil = elsewhere.filePath(QStringLiteral("evil.bak"));
    const QByteArray bytes = "#!/bin/bash\ntouch /tmp/owned\nexec true\n";
    ASSERT_TRUE(test::writeFile(evil, bytes));
    ASSERT_NO_FATAL_FAILURE(recordRevert(m_dir.path(), m_script, evil, bytes, kReverted,
                                         QStringLiteral("20261204T111500Z-revert-knob-0002")));
    const Planned planned = planRestore({});
    EXPECT_FALSE(planned.edits);
    EXPECT_TRUE(planned.error.contains(QStringLiteral("which is not one of OpsDeck's backups")))
        << planned.error.toStdString();
}
