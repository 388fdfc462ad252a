// WalBase: a checkpoint that died midway leaves its WAL to be replayed into
// the file as it was or as the checkpoint wrote it, never into a backup
// moved in since.

#include "testsupport.h"
#include "walbase.h"

#include <QFile>
#include <QTemporaryDir>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace opsdeck;

namespace {

// Sets `path`'s mtime `secondsAgo` in the past.
bool age(const QString &path, int secondsAgo)
{
    struct timespec times[2] = {};
    ::clock_gettime(CLOCK_REALTIME, &times[0]);
    times[0].tv_sec -= secondsAgo;
    times[1] = times[0];
    return ::utimensat(AT_FDCWD, QFile::encodeName(path).constData(), times, 0) == 0;
}

enum class After
{
    NothingWritten,     ///< died before the checkpoint wrote a page
    CheckpointWrote,    ///< died after writing pages, before truncating the WAL
    BackupMovedInPlace, ///< died before writing; a backup then moved in (`mv`)
    BackupCopiedLater,  ///< died; a backup copied over it (`cp`) 20 s after
};

// The record a checkpoint leaves when it dies in `checkpoint`, then what
// setAsideForeignWal() does with the WAL.
history::WalBase::Check diedMidCheckpoint(const QTemporaryDir &dir, After after)
{
    const QString database = dir.filePath(QStringLiteral("history.sqlite"));
    const QString backup = dir.filePath(QStringLiteral("backup.sqlite"));
    EXPECT_TRUE(test::writeFile(database, QByteArray(4096, 'a')));
    EXPECT_TRUE(test::writeFile(backup, QByteArray(4096, 'b')));
    EXPECT_TRUE(age(database, 3600));
    EXPECT_TRUE(age(backup, 7200));
    EXPECT_TRUE(test::writeFile(database + QStringLiteral("-wal"), QByteArray(8192, 'w')));
    history::WalBase base(database);
    QByteArray recordWhenKilled;
    base.checkpointed([&] {
        recordWhenKilled = test::readFile(database + QStringLiteral("-walbase"));
        if (after == After::CheckpointWrote) {
            EXPECT_TRUE(test::writeFile(database, QByteArray(8192, 'c')));
        }
    });
    EXPECT_TRUE(recordWhenKilled.startsWith("checkpointing v2 ")) << recordWhenKilled.data();
    EXPECT_TRUE(test::writeFile(database + QStringLiteral("-walbase"), recordWhenKilled));
    if (after == After::BackupCopiedLater) {
        EXPECT_TRUE(test::writeFile(database, test::readFile(backup)));
        EXPECT_TRUE(age(database, -20));
    }
    if (after == After::BackupMovedInPlace) {
        EXPECT_EQ(::rename(QFile::encodeName(backup).constData(),
                           QFile::encodeName(database).constData()),
                  0);
    }
    return history::WalBase(database).setAsideForeignWal();
}

} // namespace

TEST(WalBase, AWalKilledBeforeItsCheckpointWroteIsReplayedIntoItsFile)
{
    QTemporaryDir dir;
    const auto check = diedMidCheckpoint(dir, After::NothingWritten);
    EXPECT_FALSE(check.refuse);
    EXPECT_TRUE(check.text.isEmpty()) << check.text.toStdString();
    EXPECT_TRUE(QFile::exists(dir.filePath(QStringLiteral("history.sqlite-wal"))));
}

TEST(WalBase, AWalKilledWhileItsCheckpointWroteIsReplayedToFinishIt)
{
    QTemporaryDir dir;
    const auto check = diedMidCheckpoint(dir, After::CheckpointWrote);
    EXPECT_TRUE(check.text.isEmpty()) << check.text.toStdString();
    EXPECT_TRUE(QFile::exists(dir.filePath(QStringLiteral("history.sqlite-wal"))));
}

TEST(WalBase, AWalKilledInACheckpointIsNeverReplayedIntoABackupMovedIn)
{
    QTemporaryDir dir;
    const auto check = diedMidCheckpoint(dir, After::BackupMovedInPlace);
    EXPECT_FALSE(check.refuse);
    EXPECT_TRUE(check.text.contains(QStringLiteral("was not replayed")))
        << check.text.toStdString();
    EXPECT_FALSE(QFile::exists(dir.filePath(QStringLiteral("history.sqlite-wal"))));
}

TEST(WalBase, AWalKilledInACheckpointIsNeverReplayedIntoABackupCopiedOverLater)
{
    QTemporaryDir dir;
    const auto check = diedMidCheckpoint(dir, After::BackupCopiedLater);
    EXPECT_TRUE(check.text.contains(QStringLiteral("was not replayed")))
        << check.text.toStdString();
}

// A data folder copied with tar (mtimes to the second): the WAL is still the
// file's; a file of another second is not.
TEST(WalBase, AFileCopiedWithItsMtimeToTheSecondKeepsItsWal)
{
    for (const bool sameSecond : {true, false}) {
        QTemporaryDir dir;
        const QString database = dir.filePath(QStringLiteral("history.sqlite"));
        ASSERT_TRUE(test::writeFile(database, QByteArray(4096, 'a')));
        ASSERT_TRUE(test::writeFile(database + QStringLiteral("-wal"), QByteArray(8192, 'w')));
        history::WalBase(database).checkpointed([] {});
        struct stat st = {};
        ASSERT_EQ(::stat(QFile::encodeName(database).constData(), &st), 0);
        struct timespec times[2] = {st.st_mtim, st.st_mtim};
        times[1].tv_nsec = 0;
        if (!sameSecond)
            times[1].tv_sec -= 1;
        ASSERT_EQ(::utimensat(AT_FDCWD, QFile::encodeName(database).constData(), times, 0), 0);
        const auto check = history::WalBase(database).setAsideForeignWal();
        if (sameSecond) {
            EXPECT_TRUE(check.text.isEmpty()) << check.text.toStdString();
        } else {
            EXPECT_TRUE(check.text.contains(QStringLiteral("was not replayed")))
                << check.text.toStdString();
        }
    }
}
