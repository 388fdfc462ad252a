// LogTail following real files through LocalTransport and (once) through
// SshTransport against a real sshd: appended lines, partial lines, truncation
// and rotation, a missing file, a timed-out read, the first read's window.
#include "localtransport.h"
#include "logtail.h"
#include "sshfixture.h"
#include "sshtransport.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace std::chrono_literals;
using opsdeck::remote::LocalTransport;
using opsdeck::remote::LogTail;
using opsdeck::test::waitUntil;

namespace {

bool appendTo(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Append) && file.write(bytes) == bytes.size();
}

bool hasLine(const LogTail &tail, const QString &text)
{
    const auto &buffer = tail.buffer();
    for (qint64 n = buffer.firstLine(); n < buffer.endLine(); ++n)
        if (buffer.line(n) == text)
            return true;
    return false;
}

bool hasLineStarting(const LogTail &tail, const QString &prefix)
{
    const auto &buffer = tail.buffer();
    for (qint64 n = buffer.firstLine(); n < buffer.endLine(); ++n)
        if (buffer.line(n).startsWith(prefix))
            return true;
    return false;
}

// Follows `path` through `transport`: appended lines (one in two pieces),
// then a truncation; shared by the local and the SSH test.
void followAppendAndTruncate(opsdeck::remote::Transport &transport, const QString &path)
{
    const QByteArray recorded =
        opsdeck::test::readData(QStringLiteral("logs/opsdeck-sim-decode.log"));
    ASSERT_TRUE(opsdeck::test::writeFile(path, recorded));
    LogTail tail(&transport, path);
    tail.setPollInterval(50ms);
    tail.setFollowing(true);
    ASSERT_TRUE(waitUntil([&] { return tail.buffer().lineCount() == 19; }, 20s))
        << tail.errorText().toStdString();
    EXPECT_TRUE(tail.errorText().isEmpty()) << tail.errorText().toStdString();
    EXPECT_EQ(tail.buffer().offset(), recorded.size());
    EXPECT_TRUE(tail.lastUpdated().isValid());

    int added = 0;
    QObject::connect(&tail, &LogTail::linesAdded, &tail,
                     [&](qint64, int count) { added += count; });
    ASSERT_TRUE(appendTo(path, "2026-11-30 23:19:00.000 INFO decode: appended one\nhalf a li"));
    ASSERT_TRUE(waitUntil(
        [&] {
            return hasLine(tail,
                           QStringLiteral("2026-11-30 23:19:00.000 INFO decode: appended one"));
        },
        10s));
    // The incomplete line waits for its newline.
    ASSERT_TRUE(waitUntil([&] { return tail.buffer().partialLine() == "half a li"; }, 10s));
    EXPECT_EQ(tail.buffer().lineCount(), 20);
    ASSERT_TRUE(appendTo(path, "ne\n"));
    ASSERT_TRUE(waitUntil([&] { return hasLine(tail, QStringLiteral("half a line")); }, 10s));
    EXPECT_EQ(added, 2);

    // Truncated in place (copytruncate) and written again, shorter.
    ASSERT_TRUE(opsdeck::test::writeFile(path, "after truncation\n"));
    ASSERT_TRUE(waitUntil([&] { return hasLine(tail, QStringLiteral("after truncation")); }, 10s));
    EXPECT_TRUE(hasLineStarting(tail, QStringLiteral("[opsdeck] log truncated at ")));
    EXPECT_TRUE(tail.lastRestart().isValid());
    EXPECT_EQ(tail.buffer().offset(), 17);
}

} // namespace

TEST(LogTail, LocalFollowPicksUpAppendedLinesAndTruncation)
{
    QTemporaryDir dir;
    LocalTransport transport;
    followAppendAndTruncate(transport, dir.filePath(QStringLiteral("decode.log")));
}

TEST(LogTail, LocalRotationReadsTheNewFileFromItsStart)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("router.log"));
    ASSERT_TRUE(opsdeck::test::writeFile(
        path, opsdeck::test::readData(QStringLiteral("logs/opsdeck-sim-router.log"))));
    LocalTransport transport;
    LogTail tail(&transport, path);
    tail.setPollInterval(50ms);
    tail.setFollowing(true);
    ASSERT_TRUE(waitUntil([&] { return tail.buffer().lineCount() == 8; }, 10s));
    // logrotate's default: rename, then the server opens a new file. The new
    // file is longer than the old offset, so only the inode tells.
    ASSERT_TRUE(QFile::rename(path, path + QStringLiteral(".1")));
    const QByteArray fresh = QByteArray(2000, 'x') + "\nfirst line of the new file\n";
    ASSERT_TRUE(opsdeck::test::writeFile(path, fresh));
    ASSERT_TRUE(waitUntil(
        [&] { return hasLine(tail, QStringLiteral("first line of the new file")); }, 10s));
    EXPECT_TRUE(hasLineStarting(tail, QStringLiteral("[opsdeck] log rotated at ")));
    EXPECT_TRUE(tail.buffer().line(8).startsWith(QStringLiteral("[opsdeck] log rotated at ")));
    EXPECT_EQ(tail.buffer().line(9), QString(2000, u'x'));
    EXPECT_EQ(tail.buffer().offset(), fresh.size());
}

TEST(LogTail, MissingFileIsReportedWithHostAndPathAndPollingGoesOn)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("logs/decode.log"));
    LocalTransport transport(QStringLiteral("gpu-node-7"));
    LogTail tail(&transport, path);
    tail.setPollInterval(50ms);
    tail.setFollowing(true);
    ASSERT_TRUE(waitUntil([&] { return tail.readCount() >= 3; }, 10s));
    EXPECT_EQ(tail.errorText(), QStringLiteral("gpu-node-7: log file %1 does not exist").arg(path));
    EXPECT_EQ(tail.buffer().lineCount(), 0);

    ASSERT_TRUE(QDir(dir.path()).mkdir(QStringLiteral("logs")));
    ASSERT_TRUE(opsdeck::test::writeFile(path, "it exists now\n"));
    ASSERT_TRUE(waitUntil([&] { return hasLine(tail, QStringLiteral("it exists now")); }, 10s));
    EXPECT_TRUE(tail.errorText().isEmpty());

    // A directory where the file should be.
    LogTail onDir(&transport, dir.filePath(QStringLiteral("logs")));
    onDir.refresh();
    ASSERT_TRUE(waitUntil([&] { return onDir.readCount() == 1; }, 10s));
    EXPECT_EQ(onDir.errorText(), QStringLiteral("gpu-node-7: %1 is not a regular file")
                                     .arg(dir.filePath(QStringLiteral("logs"))));
}

TEST(LogTail, TimedOutReadIsShownAndTheNextPollRecovers)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("decode.log"));
    ASSERT_TRUE(opsdeck::test::writeFile(path, "line one\n"));
    // A `stat` that hangs, first on PATH, as on a host whose log sits on a
    // stuck network mount: the read must time out, not wait.
    const QString bin = dir.filePath(QStringLiteral("bin"));
    ASSERT_TRUE(QDir(dir.path()).mkdir(QStringLiteral("bin")));
    const QString slowStat = bin + QStringLiteral("/stat");
    ASSERT_TRUE(opsdeck::test::writeFile(slowStat, "#!/bin/sh\nsleep 60\n"));
    ASSERT_TRUE(QFile::setPermissions(slowStat, QFile::ReadOwner | QFile::ExeOwner));
    const QByteArray oldPath = qgetenv("PATH");
    qputenv("PATH", bin.toUtf8() + ':' + oldPath);
    LocalTransport transport;
    LogTail tail(&transport, path);
    tail.setReadDeadline(300ms);
    tail.refresh();
    const bool timedOut = waitUntil([&] { return tail.readCount() == 1; }, 10s);
    qputenv("PATH", oldPath);
    ASSERT_TRUE(timedOut);
    EXPECT_TRUE(tail.errorText().startsWith(
        QStringLiteral("local: reading %1 failed: timed out after ").arg(path)))
        << tail.errorText().toStdString();
    EXPECT_EQ(tail.buffer().lineCount(), 0);

    tail.setReadDeadline(10s);
    tail.refresh();
    ASSERT_TRUE(waitUntil([&] { return tail.readCount() == 2; }, 10s));
    EXPECT_TRUE(tail.errorText().isEmpty()) << tail.errorText().toStdString();
    EXPECT_TRUE(hasLine(tail, QStringLiteral("line one")));
}

TEST(LogTail, FirstReadTakesOnlyTheLast256KiBAndCatchesUpInCappedReads)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("big.log"));
    QByteArray big;
    for (int n = 0; big.size() < 3 * 1024 * 1024; ++n)
        big += QByteArray("2026-11-30 23:18:53.280 INFO decode: Decode batch. #running-req: ") +
               QByteArray::number(n) + '\n';
    ASSERT_TRUE(opsdeck::test::writeFile(path, big));
    LocalTransport transport;
    LogTail tail(&transport, path);
    tail.refresh();
    ASSERT_TRUE(waitUntil([&] { return tail.readCount() == 1; }, 10s));
    EXPECT_EQ(tail.buffer().offset(), big.size());
    const qint64 lines = tail.buffer().lineCount();
    EXPECT_GT(lines, 256 * 1024 / 80);
    EXPECT_LT(lines, 256 * 1024 / 60);
    // The first kept line is whole (the cut one was dropped).
    EXPECT_TRUE(tail.buffer().line(0).startsWith(QStringLiteral("2026-11-30 ")));

    // 2.5 MiB appended at once: caught up in 1 MiB reads, one after another.
    QByteArray more;
    for (int n = 0; more.size() < 5 * 512 * 1024; ++n)
        more += QByteArray("appended ") + QByteArray::number(n) + '\n';
    ASSERT_TRUE(appendTo(path, more));
    tail.setPollInterval(1h); // only the "more to read" reads may come
    tail.setFollowing(true);
    ASSERT_TRUE(waitUntil([&] { return tail.buffer().offset() == big.size() + more.size(); }, 20s));
    EXPECT_EQ(tail.readCount(), 1 + 3);
    EXPECT_EQ(tail.buffer().lineCount(), opsdeck::remote::LogBuffer::defaultMaxLines);
    EXPECT_GT(tail.buffer().droppedLines(), 0);
    EXPECT_EQ(tail.buffer().line(tail.buffer().endLine() - 1),
              QString::fromLatin1(more.split('\n').at(more.count('\n') - 1)));
}

TEST(LogTail, SshFollowsAQuotedPathThroughARealSshd)
{
    opsdeck::test::SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    opsdeck::remote::SshTransport transport(QStringLiteral("test-host"),
                                            opsdeck::test::sshSettings(sshd));
    ASSERT_TRUE(QDir(sshd.dir()).mkdir(QStringLiteral("my logs")));
    followAppendAndTruncate(transport, sshd.path(QStringLiteral("my logs/it's decode.log")));

    LogTail missing(&transport, sshd.path(QStringLiteral("my logs/none.log")));
    missing.refresh();
    ASSERT_TRUE(waitUntil([&] { return missing.readCount() == 1; }, 20s));
    EXPECT_EQ(missing.errorText(), QStringLiteral("test-host: log file %1 does not exist")
                                       .arg(sshd.path(QStringLiteral("my logs/none.log"))));
}
