// WorkflowRunner's knob edit step over the real local files: a script that
// was changed but whose "edited" audit entry could not be written fails the
// step (as `knobs set` exits 1), and the step still names its backup.
#include "knobfiles.h"
#include "localfiles.h"
#include "localtransport.h"
#include "revertrecord.h"
#include "testsupport.h"
#include "workflowjournal.h"
#include "workflowrunner.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace opsdeck;
using knobs::KnobFiles;
using workflows::WorkflowPlan;
using workflows::WorkflowRunner;

TEST(WorkflowRunnerEdit, AnEditWhoseEditedEntryIsNotWrittenFailsTheStepNamingItsBackup)
{
    QTemporaryDir dir;
    const QString script = dir.filePath(QStringLiteral("serve_p.sh"));
    ASSERT_TRUE(test::writeFile(script, "#!/bin/bash\nexport K=512\nexec true\n"));
    remote::LocalFiles files;
    remote::LocalTransport local;
    KnobFiles knobFiles(&files, &local);
    std::optional<KnobFiles::Plan> edit;
    knobs::ScriptEdit comment;
    comment.name = QStringLiteral("K");
    comment.operation = knobs::ScriptEdit::Operation::Comment;
    knobFiles.plan(script, comment, [&](const KnobFiles::Plan &planned) { edit = planned; });
    ASSERT_TRUE(test::waitUntil([&] { return edit.has_value(); }, std::chrono::seconds(10)));
    ASSERT_TRUE(edit->ok) << (edit ? edit->error.toStdString() : "no plan");

    WorkflowPlan plan = test::revertPlanOf(script);
    plan.knobEdits = {{1, QStringLiteral("p"), *edit}};

    WorkflowRunner::Context context;
    context.inventory = test::inventoryServing(script, dir.path());
    context.transportFor = [&](const QString &) { return &local; };
    context.filesFor = [&](const QString &) { return &files; };
    QStringList audited;
    context.audit = [&](const history::AuditEntry &entry, std::function<void(bool, QString)> done) {
        audited << entry.action;
        // The disk fills between the edit and its "edited" entry.
        if (entry.action == u"edited")
            return done(false, QStringLiteral("No space left on device"));
        done(true, {});
    };
    WorkflowRunner runner(context);
    QSignalSpy steps(&runner, &WorkflowRunner::stepFinished);
    QSignalSpy finished(&runner, &WorkflowRunner::finished);
    QString error;
    auto journal = workflows::WorkflowJournal::create(dir.path(), plan, &error);
    ASSERT_TRUE(journal) << error.toStdString();
    runner.run(plan, *journal, {QStringLiteral("p"), {}, false});
    ASSERT_TRUE(finished.wait(15'000));
    ASSERT_EQ(steps.size(), 1);
    const QString detail = steps.first().at(2).toString();
    EXPECT_FALSE(steps.first().at(1).toBool()) << detail.toStdString();
    EXPECT_TRUE(detail.startsWith(QStringLiteral("backup ")) &&
                detail.contains(QStringLiteral("\"edited\" audit entry could not be written")))
        << detail.toStdString();
    EXPECT_EQ(finished.first().at(0).value<WorkflowRunner::Outcome>(),
              WorkflowRunner::Outcome::Failed);
    EXPECT_TRUE(audited.contains(QStringLiteral("edit"))) << audited.join(u' ').toStdString();
}
