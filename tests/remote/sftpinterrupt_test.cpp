// An atomic write over SFTP cut off by a lost connection (the sshd process
// serving the session is killed mid-write of 20 MB): the file keeps its old
// bytes and mode, the temp file never takes its name, and the next write
// after the reconnect works.
#include "filesfixture.h"
#include "sftpfiles.h"
#include "sshfixture.h"
#include "sshtransport.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace std::chrono_literals;
using opsdeck::remote::RemoteFileResult;
using opsdeck::remote::RemoteFiles;
using opsdeck::remote::SftpFiles;
using opsdeck::remote::SshTransport;
using opsdeck::test::namesIn;
using opsdeck::test::SshdProcess;
using opsdeck::test::statOf;

TEST(SftpInterruptedWrite, LostConnectionLeavesTheOldFileNeverATruncatedOne)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    QTemporaryDir dir;
    const QByteArray dirPath = QFile::encodeName(dir.path());
    const QByteArray file = dirPath + "/weights.bin";
    const QByteArray old(1024 * 1024, 'o');
    ASSERT_TRUE(opsdeck::test::writeBytes(file, old));
    ASSERT_EQ(::chmod(file.constData(), 0640), 0);

    SshTransport transport(QStringLiteral("test-host"), opsdeck::test::sshSettings(sshd));
    SftpFiles files(&transport);
    // Connected first, so the only connection is the one the write uses.
    ASSERT_TRUE(opsdeck::test::callFiles(files, [&](RemoteFiles &f) { return f.stat(file); })
                    .value_or(RemoteFileResult{})
                    .ok);

    std::optional<RemoteFileResult> result;
    QObject::connect(&files, &RemoteFiles::fileFinished, &files,
                     [&](quint64, const RemoteFileResult &r) { result = r; });
    const QByteArray fresh(20 * 1024 * 1024, 'n');
    files.write(file, fresh);

    // Mid-write: the temp file exists beside the file and has grown past 1 MiB.
    QByteArray temp;
    ASSERT_TRUE(opsdeck::test::waitUntil(
        [&] {
            for (const QByteArray &name : namesIn(dirPath))
                if (name.startsWith(".weights.bin.opsdeck-") &&
                    statOf(dirPath + '/' + name).st_size > 1024 * 1024)
                    temp = name;
            return !temp.isEmpty();
        },
        30s));
    ASSERT_FALSE(result.has_value()) << "the write ended before it could be interrupted";
    const qint64 tempBytesAtKill = statOf(dirPath + '/' + temp).st_size;
    const QVector<qint64> connections = sshd.connectionPids();
    ASSERT_EQ(connections.size(), 1);
    for (qint64 child : SshdProcess::childPids(connections.first()))
        ::kill(static_cast<pid_t>(child), SIGKILL);
    ::kill(static_cast<pid_t>(connections.first()), SIGKILL);

    ASSERT_TRUE(opsdeck::test::waitUntil([&] { return result.has_value(); }, 30s))
        << "a lost connection must end the write, not hang it";
    std::printf("interrupted after %lld of %lld bytes\n", static_cast<long long>(tempBytesAtKill),
                static_cast<long long>(fresh.size()));
    EXPECT_FALSE(result->ok);
    EXPECT_TRUE(result->errorText.contains(QStringLiteral("test-host")))
        << result->errorText.toStdString();
    EXPECT_TRUE(result->errorText.contains(QString::fromUtf8(file)))
        << result->errorText.toStdString();
    // The old version, whole, with its mode; the temp file did not replace it.
    EXPECT_EQ(opsdeck::test::readFile(QFile::decodeName(file)), old);
    EXPECT_EQ(statOf(file).st_mode & 07777, 0640u);
    for (const QByteArray &name : namesIn(dirPath))
        EXPECT_TRUE(name == "weights.bin" || name == temp) << name.constData();

    // The next write reconnects and replaces the file whole, and removes the
    // temp file the cut-off write left (it knows its exact name: it is
    // seconds old, far from stale by age).
    const RemoteFileResult again = opsdeck::test::callFiles(files, [&](RemoteFiles &f) {
                                       return f.write(file, "v2\n");
                                   }).value_or(RemoteFileResult{});
    ASSERT_TRUE(again.ok) << again.errorText.toStdString();
    EXPECT_EQ(opsdeck::test::readFile(QFile::decodeName(file)), "v2\n");
    EXPECT_EQ(statOf(file).st_mode & 07777, 0640u);
    EXPECT_EQ(namesIn(dirPath), QList<QByteArray>{"weights.bin"});
}

TEST(SftpFiles, WriteRemovesOnlyStaleTempFilesOfItsOwnPath)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    QTemporaryDir dir;
    const QByteArray dirPath = QFile::encodeName(dir.path());
    const auto at = [&](const QByteArray &name) -> QByteArray { return dirPath + '/' + name; };
    // Temp files an earlier process left, and look-alikes that are not ours.
    const QList<QByteArray> old = {
        ".serve_decode.sh.opsdeck-1x9k2m", // stale: removed
        ".serve_decode.sh.opsdeck-3w5e11264sgsf",
        ".serve_decode.sh.opsdeck-ABC",      // not base 36 lower case
        ".serve_decode.sh.opsdeck-1x9k2m.1", // a suffix
        ".serve_decode.sh.opsdeck-",         // no random part
        ".serve_prefill.sh.opsdeck-1x9k2m",  // another file's
        "serve_decode.sh.opsdeck-1x9k2m",    // no leading dot
        ".serve_decode.sh.opsdeck-4rd0wner", // another user's
    };
    for (const QByteArray &name : old)
        ASSERT_TRUE(opsdeck::test::writeBytes(at(name), "partial"));
    // Another writer's live temp file: just written, so not stale.
    ASSERT_TRUE(opsdeck::test::writeBytes(at(".serve_decode.sh.opsdeck-l1ve"), "partial"));
    // A directory and a symlink of the exact pattern: never removed.
    ASSERT_EQ(::mkdir(at(".serve_decode.sh.opsdeck-d1r").constData(), 0755), 0);
    ASSERT_EQ(::symlink("serve_decode.sh", at(".serve_decode.sh.opsdeck-11nk").constData()), 0);
    // CI runs as root (SshdProcess): nobody (65534) is another user.
    ASSERT_EQ(::lchown(at(".serve_decode.sh.opsdeck-4rd0wner").constData(), 65534, 65534), 0);
    // Eleven minutes old, by the clock both sides share here.
    const timespec elevenMinutesAgo{::time(nullptr) - 11 * 60, 0};
    const timespec times[2] = {elevenMinutesAgo, elevenMinutesAgo};
    for (const char *name : {".serve_decode.sh.opsdeck-d1r", ".serve_decode.sh.opsdeck-11nk"})
        ASSERT_EQ(::utimensat(AT_FDCWD, at(name).constData(), times, AT_SYMLINK_NOFOLLOW), 0);
    for (const QByteArray &name : old)
        ASSERT_EQ(::utimensat(AT_FDCWD, at(name).constData(), times, AT_SYMLINK_NOFOLLOW), 0);

    SshTransport transport(QStringLiteral("test-host"), opsdeck::test::sshSettings(sshd));
    SftpFiles files(&transport);
    const QByteArray file = at("serve_decode.sh");
    const RemoteFileResult written = opsdeck::test::callFiles(files, [&](RemoteFiles &f) {
                                         return f.write(file, "export KNOB=1\n");
                                     }).value_or(RemoteFileResult{});
    ASSERT_TRUE(written.ok) << written.errorText.toStdString();

    QList<QByteArray> expected = old;
    expected.removeAll(".serve_decode.sh.opsdeck-1x9k2m");
    expected.removeAll(".serve_decode.sh.opsdeck-3w5e11264sgsf");
    expected << ".serve_decode.sh.opsdeck-l1ve"
             << ".serve_decode.sh.opsdeck-d1r"
             << ".serve_decode.sh.opsdeck-11nk"
             << "serve_decode.sh";
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(namesIn(dirPath), expected);
}

TEST(SftpFiles, WriteOfTwentyMegabytesArrivesWhole)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    QTemporaryDir dir;
    const QByteArray file = QFile::encodeName(dir.path()) + "/weights.bin";
    SshTransport transport(QStringLiteral("test-host"), opsdeck::test::sshSettings(sshd));
    SftpFiles files(&transport);
    QByteArray fresh(20 * 1024 * 1024, 'n');
    for (qsizetype i = 0; i < fresh.size(); i += 4096)
        fresh[i] = char(i / 4096); // not all one byte: a misplaced chunk shows
    QElapsedTimer clock;
    clock.start();
    const RemoteFileResult written = opsdeck::test::callFiles(files, [&](RemoteFiles &f) {
                                         return f.write(file, fresh);
                                     }).value_or(RemoteFileResult{});
    ASSERT_TRUE(written.ok) << written.errorText.toStdString();
    std::printf("20 MiB atomic write over SFTP: %lld ms\n",
                static_cast<long long>(clock.elapsed()));
    EXPECT_EQ(opsdeck::test::readFile(QFile::decodeName(file)), fresh);
    const RemoteFileResult back = opsdeck::test::callFiles(files, [&](RemoteFiles &f) {
                                      return f.read(file, 32 << 20);
                                  }).value_or(RemoteFileResult{});
    ASSERT_TRUE(back.ok) << back.errorText.toStdString();
    EXPECT_EQ(back.data, fresh);
}
