// ClusterLock through the local transport: taken once, refused to a second
// workflow naming the first, and a lock file that could not be filled (a
// full disk; here a file size limit the host's shell inherits) removed again
// instead of standing empty in every later run's way.
#include "clusterlock.h"
#include "localtransport.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <csignal>
#include <gtest/gtest.h>
#include <sys/resource.h>

using namespace opsdeck;
using workflows::ClusterLock;

namespace {

ClusterLock::Holder holder(const QString &workflow)
{
    ClusterLock::Holder me;
    me.owner = QStringLiteral("alice");
    me.fromHost = QStringLiteral("laptop-3");
    me.workflow = workflow;
    return me;
}

ClusterLock::Result answer(const std::function<void(ClusterLock::Done)> &call)
{
    std::optional<ClusterLock::Result> result;
    call([&](const ClusterLock::Result &r) { result = r; });
    EXPECT_TRUE(test::waitUntil([&] { return result.has_value(); }, std::chrono::seconds(20)))
        << "no answer within 20 s";
    return result.value_or(ClusterLock::Result());
}

} // namespace

TEST(ClusterLock, ASecondWorkflowIsRefusedNamingTheFirst)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    ClusterLock lock(&local, dir.filePath(QStringLiteral(".opsdeck-lock-pd")));
    const auto first = answer(
        [&](auto done) { lock.take(holder(QStringLiteral("w-1")), std::chrono::hours(1), done); });
    EXPECT_TRUE(first.ok) << first.error.toStdString();
    const auto second = answer(
        [&](auto done) { lock.take(holder(QStringLiteral("w-2")), std::chrono::hours(1), done); });
    EXPECT_FALSE(second.ok);
    EXPECT_TRUE(second.error.contains(QStringLiteral("alice on laptop-3, workflow w-1")))
        << second.error.toStdString();
}

TEST(ClusterLock, ALockThatCouldNotBeWrittenIsRemovedAndNamedAsSuch)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral(".opsdeck-lock-pd"));
    remote::LocalTransport local;
    ClusterLock lock(&local, path);
    rlimit was{};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &was), 0);
    const auto previous = std::signal(SIGXFSZ, SIG_IGN);
    rlimit none = was;
    none.rlim_cur = 0; // the shell the transport starts can create files, not fill them
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &none), 0);
    const auto full = answer(
        [&](auto done) { lock.take(holder(QStringLiteral("w-1")), std::chrono::hours(1), done); });
    ::setrlimit(RLIMIT_FSIZE, &was);
    std::signal(SIGXFSZ, previous);
    EXPECT_FALSE(full.ok);
    EXPECT_TRUE(full.error.contains(QStringLiteral("could not be written")))
        << full.error.toStdString();
    EXPECT_FALSE(QFile::exists(path)) << "an empty lock left in the way";
    const auto then = answer(
        [&](auto done) { lock.take(holder(QStringLiteral("w-1")), std::chrono::hours(1), done); });
    EXPECT_TRUE(then.ok) << then.error.toStdString();

    // One an older version left empty is named for what it is.
    QFile empty(dir.filePath(QStringLiteral(".opsdeck-lock-dc")));
    ASSERT_TRUE(empty.open(QIODevice::WriteOnly));
    empty.close();
    ClusterLock left(&local, empty.fileName());
    const auto refused = answer(
        [&](auto done) { left.take(holder(QStringLiteral("w-2")), std::chrono::hours(1), done); });
    EXPECT_FALSE(refused.ok);
    EXPECT_TRUE(refused.error.contains(QStringLiteral("the lock file is empty or unreadable")))
        << refused.error.toStdString();
}

// A break removes the lock it read, not one taken since: two people breaking
// one stale lock once had the second break remove the lock a workflow took
// after the first (its entry naming the stale holder). Nor anything put at
// the lock's name meanwhile.
TEST(ClusterLock, ABreakRemovesOnlyTheLockItRead)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    const QString path = dir.filePath(QStringLiteral(".opsdeck-lock-pd"));
    ClusterLock lock(&local, path);
    ASSERT_TRUE(answer([&](auto done) {
                    lock.take(holder(QStringLiteral("w-stale")), std::chrono::hours(1), done);
                }).ok);
    const auto seen = answer([&](auto done) { lock.status(done); });
    ASSERT_TRUE(seen.holder && seen.holder->workflow == QStringLiteral("w-stale"));
    // Broken by someone else meanwhile, and taken by another workflow.
    ASSERT_TRUE(QFile::remove(path));
    ASSERT_TRUE(answer([&](auto done) {
                    lock.take(holder(QStringLiteral("w-live")), std::chrono::hours(1), done);
                }).ok);
    const auto broken = answer([&](auto done) { lock.breakLock(seen.text, done); });
    EXPECT_FALSE(broken.ok);
    EXPECT_TRUE(broken.error.contains(QStringLiteral("changed since it was read")) &&
                broken.error.contains(QStringLiteral("workflow w-live")))
        << broken.error.toStdString();
    const auto after = answer([&](auto done) { lock.status(done); });
    ASSERT_TRUE(after.holder);
    EXPECT_EQ(after.holder->workflow, QStringLiteral("w-live"));
    // A link at its name is not removed either; the lock read is, and a gone one is fine.
    ASSERT_TRUE(QFile::remove(path));
    ASSERT_TRUE(QFile::link(dir.filePath(QStringLiteral("elsewhere")), path));
    EXPECT_FALSE(answer([&](auto done) { lock.breakLock(after.text, done); }).ok);
    EXPECT_TRUE(QFileInfo(path).isSymLink());
    ASSERT_TRUE(QFile::remove(path));
    ASSERT_TRUE(answer([&](auto done) {
                    lock.take(holder(QStringLiteral("w-3")), std::chrono::hours(1), done);
                }).ok);
    const auto third = answer([&](auto done) { lock.status(done); });
    EXPECT_TRUE(answer([&](auto done) { lock.breakLock(third.text, done); }).ok);
    EXPECT_FALSE(QFileInfo::exists(path));
    EXPECT_TRUE(answer([&](auto done) { lock.breakLock(third.text, done); }).ok);
}

// A resume takes its own lock again with the time and expiry of now: a lock
// left as it was read as STALE while the resumed workflow ran, and a break
// of it (its text unchanged) let a second workflow run beside it.
TEST(ClusterLock, AResumeTakesItsOwnLockAgainAsNew)
{
    QTemporaryDir dir;
    remote::LocalTransport local;
    ClusterLock lock(&local, dir.filePath(QStringLiteral(".opsdeck-lock-pd")));
    ASSERT_TRUE(answer([&](auto done) {
                    lock.take(holder(QStringLiteral("w-1")), std::chrono::seconds(-60), done);
                }).ok);
    const auto before = answer([&](auto done) { lock.status(done); });
    ASSERT_TRUE(before.holder);
    EXPECT_TRUE(before.holder->staleAt(QDateTime::currentDateTimeUtc()));
    ASSERT_TRUE(answer([&](auto done) {
                    lock.take(holder(QStringLiteral("w-1")), std::chrono::hours(1), done);
                }).ok);
    const auto after = answer([&](auto done) { lock.status(done); });
    ASSERT_TRUE(after.holder);
    EXPECT_EQ(after.holder->workflow, QStringLiteral("w-1"));
    EXPECT_FALSE(after.holder->staleAt(QDateTime::currentDateTimeUtc()));
    EXPECT_FALSE(answer([&](auto done) { lock.breakLock(before.text, done); }).ok);
    EXPECT_TRUE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size() == 1)
        << QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).join(u' ').toStdString();
}

// A lock file without `time=` (written by hand) once read "since  UTC (-1
// min ago)": it says it does not say.
TEST(ClusterLock, ALockWithoutATimeIsDescribedWithoutOne)
{
    const auto holder = ClusterLock::parse("owner=alice\nhost=m1\nworkflow=restart-W\n");
    ASSERT_TRUE(holder);
    const QString said = holder->describe(QDateTime::currentDateTimeUtc());
    EXPECT_EQ(said,
              QStringLiteral("alice on m1, workflow restart-W, since a time it does not say"));
}
