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
