// WorkflowJournal: what a journal cut off at any line says, and where a
// resume starts.
#include "workflowjournal.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <csignal>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

using namespace opsdeck::workflows;

namespace {

WorkflowPlan twoSteps()
{
    WorkflowPlan plan;
    plan.kind = WorkflowKind::Restart;
    plan.cluster = QStringLiteral("pd");
    plan.service = QStringLiteral("d1");
    WorkflowStep a, b;
    a.title = QStringLiteral("stop d1");
    b.title = QStringLiteral("start d1");
    plan.root = WorkflowStep::sequence(QStringLiteral("restart"), {a, b});
    plan.number();
    return plan;
}

QJsonObject event(const char *kind, int n = 0, bool ok = true)
{
    QJsonObject e{{QStringLiteral("event"), QLatin1String(kind)}};
    if (n > 0)
        e.insert(QStringLiteral("n"), n);
    if (QLatin1String(kind) == QLatin1String("step-end"))
        e.insert(QStringLiteral("ok"), ok);
    return e;
}

} // namespace

TEST(WorkflowJournal, AStepThatStartedAndNeverEndedIsWhereAResumeStarts)
{
    QTemporaryDir dir;
    QString error;
    auto journal = WorkflowJournal::create(dir.path(), twoSteps(), &error);
    ASSERT_TRUE(journal) << error.toStdString();
    ASSERT_TRUE(journal->append(event("step-start", 1), &error));
    ASSERT_TRUE(journal->append(event("step-end", 1), &error));
    ASSERT_TRUE(journal->append(event("step-start", 2), &error));
    // Killed here.
    auto found = WorkflowJournal::find(dir.path(), {}, &error);
    ASSERT_TRUE(found) << error.toStdString();
    EXPECT_EQ(found->id, journal->id());
    EXPECT_FALSE(found->finished);
    EXPECT_EQ(found->lastStarted, 2);
    EXPECT_EQ(found->resumeFrom(), 2);
    EXPECT_EQ(found->plan.value(QStringLiteral("service")).toString(), QStringLiteral("d1"));
    struct stat st = {};
    ASSERT_EQ(::stat(QFile::encodeName(journal->path()).constData(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);

    // A failed step is run again, also once the workflow ended failed; an
    // abandoned one is never found to resume.
    ASSERT_TRUE(journal->append(event("step-end", 2, false), &error));
    ASSERT_TRUE(journal->append({{QStringLiteral("event"), QStringLiteral("end")},
                                 {QStringLiteral("outcome"), QStringLiteral("failed")}},
                                &error));
    found = WorkflowJournal::find(dir.path(), {}, &error);
    ASSERT_TRUE(found) << error.toStdString();
    EXPECT_TRUE(found->resumable());
    EXPECT_EQ(found->resumeFrom(), 2);
    ASSERT_TRUE(journal->append({{QStringLiteral("event"), QStringLiteral("end")},
                                 {QStringLiteral("outcome"), QStringLiteral("abandoned")}},
                                &error));
    EXPECT_FALSE(WorkflowJournal::find(dir.path(), {}, &error));
    EXPECT_TRUE(error.startsWith(u"no unfinished, failed or cancelled workflow in"))
        << error.toStdString();
    const auto listed = WorkflowJournal::list(dir.path());
    ASSERT_EQ(listed.size(), 1);
    EXPECT_EQ(listed.first().outcome, QStringLiteral("abandoned"));
    // A copy under another name does not pass for it.
    ASSERT_TRUE(QFile::copy(journal->path(), WorkflowJournal::folderIn(dir.path()) +
                                                 QStringLiteral("/other.journal")));
    QStringList problems;
    EXPECT_EQ(WorkflowJournal::list(dir.path(), &problems).size(), 1);
    ASSERT_EQ(problems.size(), 1);
    EXPECT_TRUE(problems.first().contains(u"which is not its name"))
        << problems.first().toStdString();
}

TEST(WorkflowJournal, AParallelStepThatNeverEndedIsRunAgainEvenWhenALaterOneEnded)
{
    QTemporaryDir dir;
    QString error;
    auto journal = WorkflowJournal::create(dir.path(), twoSteps(), &error);
    ASSERT_TRUE(journal);
    for (const QJsonObject &e :
         {event("step-start", 1), event("step-start", 2), event("step-end", 2)})
        ASSERT_TRUE(journal->append(e, &error));
    auto read = WorkflowJournal::read(journal->path(), &error);
    ASSERT_TRUE(read);
    EXPECT_EQ(read->resumeFrom(), 1);
}

TEST(WorkflowJournal, ALastLineCutByACrashIsIgnoredAndGarbageIsNamed)
{
    QTemporaryDir dir;
    QString error;
    auto journal = WorkflowJournal::create(dir.path(), twoSteps(), &error);
    ASSERT_TRUE(journal);
    ASSERT_TRUE(journal->append(event("step-start", 1), &error));
    QFile file(journal->path());
    ASSERT_TRUE(file.open(QIODevice::Append));
    file.write("{\"event\":\"step-e");
    file.close();
    auto read = WorkflowJournal::read(journal->path(), &error);
    ASSERT_TRUE(read) << error.toStdString();
    EXPECT_EQ(read->resumeFrom(), 1);

    QFile other(WorkflowJournal::folderIn(dir.path()) + QStringLiteral("/x.journal"));
    ASSERT_TRUE(other.open(QIODevice::WriteOnly));
    other.write("not json\n{}\n");
    other.close();
    QStringList problems;
    EXPECT_EQ(WorkflowJournal::list(dir.path(), &problems).size(), 1);
    ASSERT_EQ(problems.size(), 1);
    EXPECT_TRUE(problems.first().endsWith(u"x.journal:1: not a workflow journal line"))
        << problems.first().toStdString();
}

// A co-restart of 40 decodes with long start commands wrote a plan line past
// 1 MiB, which was read back as "not a workflow journal line": the workflow
// could not be listed, resumed or abandoned.
TEST(WorkflowJournal, APlanLineLongerThanAMebibyteIsReadBack)
{
    QTemporaryDir dir;
    WorkflowPlan plan = twoSteps();
    plan.warnings << QString(3 * 1024 * 1024 / 2, u'w');
    QString error;
    const auto journal = WorkflowJournal::create(dir.path(), plan, &error);
    ASSERT_TRUE(journal) << error.toStdString();
    const auto read = WorkflowJournal::read(journal->path(), &error);
    ASSERT_TRUE(read) << error.toStdString();
    EXPECT_EQ(read->id, journal->id());
    EXPECT_FALSE(read->finished);
}

// A journal whose first line does not fit (a full disk; here a file size
// limit) is not left behind empty, to be listed as a workflow without a name.
TEST(WorkflowJournal, AJournalThatCouldNotBeStartedLeavesNoFile)
{
    QTemporaryDir dir;
    rlimit was{};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &was), 0);
    const auto previous = std::signal(SIGXFSZ, SIG_IGN);
    rlimit none = was;
    none.rlim_cur = 0;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &none), 0);
    QString error;
    const auto journal = WorkflowJournal::create(dir.path(), twoSteps(), &error);
    ::setrlimit(RLIMIT_FSIZE, &was);
    std::signal(SIGXFSZ, previous);
    EXPECT_FALSE(journal);
    EXPECT_FALSE(error.isEmpty());
    QStringList problems;
    EXPECT_TRUE(WorkflowJournal::list(dir.path(), &problems).isEmpty());
    EXPECT_TRUE(problems.isEmpty()) << problems.join(u'\n').toStdString();
    EXPECT_TRUE(QDir(WorkflowJournal::folderIn(dir.path())).isEmpty());
}

// A resume or abandon reads the journal, then claims it: another process
// that ran on in it, or ended or abandoned it, in between makes the claim
// refuse, so that nothing acts on the journal as it was read (an abandon
// once went on to resume a workflow just abandoned, and relabelled one that
// had just succeeded).
TEST(WorkflowJournal, AJournalThatChangedBetweenItsReadAndItsClaimIsNotClaimed)
{
    QTemporaryDir dir;
    QString error;
    auto journal = WorkflowJournal::create(dir.path(), twoSteps(), &error);
    ASSERT_TRUE(journal) << error.toStdString();
    ASSERT_TRUE(journal->append(event("step-start", 1), &error));
    const auto read = WorkflowJournal::read(journal->path(), &error);
    ASSERT_TRUE(read) << error.toStdString();
    const int unchanged = WorkflowJournal::claimAsRead(*read, &error);
    EXPECT_GE(unchanged, 0) << error.toStdString();
    WorkflowJournal::release(unchanged);
    const QJsonObject ends[] = {event("step-end", 1),
                                {{QStringLiteral("event"), QStringLiteral("end")},
                                 {QStringLiteral("outcome"), QStringLiteral("abandoned")}}};
    auto was = *read;
    for (const QJsonObject &end : ends) {
        ASSERT_TRUE(journal->append(end, &error));
        error.clear();
        EXPECT_EQ(WorkflowJournal::claimAsRead(was, &error), -1);
        EXPECT_TRUE(error.contains(QStringLiteral("changed while this read it")))
            << error.toStdString();
        const auto again = WorkflowJournal::read(journal->path(), &error);
        ASSERT_TRUE(again) << error.toStdString();
        was = *again;
    }
}
