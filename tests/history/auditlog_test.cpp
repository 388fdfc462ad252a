// The audit log: entries read back as written, a hash chain that names the
// first edited line, and appends from several writers at once that keep it.
#include "auditlog.h"
#include "hostkeyauditor.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <gtest/gtest.h>
#include <thread>
#include <vector>

using opsdeck::history::AuditEntry;
using opsdeck::history::AuditLog;

namespace {

AuditEntry entry(const QString &host, const QString &action)
{
    AuditEntry e;
    e.kind = QStringLiteral("host-key");
    e.host = host;
    e.action = action;
    e.detail = QStringLiteral("ssh-ed25519 SHA256:abc");
    return e;
}

} // namespace

TEST(AuditLog, EntriesReadBackInOrderAndTheChainIsIntact)
{
    QTemporaryDir dir;
    AuditLog log(AuditLog::pathIn(dir.path()));
    QString error;
    ASSERT_TRUE(
        log.append(entry(QStringLiteral("gpu-1"), QStringLiteral("refused-unknown")), &error))
        << error.toStdString();
    ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-2"), QStringLiteral("accepted-new"))));
    const auto entries = log.read();
    ASSERT_EQ(entries.size(), 2);
    EXPECT_EQ(entries[0].host, QStringLiteral("gpu-1"));
    EXPECT_EQ(entries[1].action, QStringLiteral("accepted-new"));
    EXPECT_TRUE(entries[0].time.isValid());
    EXPECT_EQ(log.verify(), QString());
    // The file is the operator's to read: owner only.
    EXPECT_EQ(QFile::permissions(log.path()) & (QFile::ReadOther | QFile::ReadGroup), 0);
}

TEST(AuditLog, AnEditedLineBreaksTheChainAtTheNextLine)
{
    QTemporaryDir dir;
    AuditLog log(AuditLog::pathIn(dir.path()));
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(
            log.append(entry(QStringLiteral("gpu-%1").arg(i), QStringLiteral("refused-changed"))));
    QFile file(log.path());
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    QByteArray text = file.readAll();
    file.close();
    text.replace("\"host\":\"gpu-1\"", "\"host\":\"gpu-9\"");
    ASSERT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(text);
    file.close();
    // Line 2 was edited; line 3's `prev` no longer matches it.
    EXPECT_EQ(log.verify(), log.path() + QStringLiteral(":3: hash chain broken: `prev` is not the "
                                                        "SHA-256 of the line before (a line was "
                                                        "removed, added or edited)"));
}

TEST(AuditLog, ConcurrentWritersKeepEveryEntryAndTheChain)
{
    QTemporaryDir dir;
    const QString path = AuditLog::pathIn(dir.path());
    // Two AuditLog objects stand for two processes: only the lock file orders them.
    AuditLog a(path);
    AuditLog b(path);
    constexpr int perWriter = 40;
    std::vector<std::thread> writers;
    for (AuditLog *log : {&a, &b})
        writers.emplace_back([log] {
            for (int i = 0; i < perWriter; ++i)
                log->append(entry(QStringLiteral("h"), QStringLiteral("refused-unknown")));
        });
    for (auto &t : writers)
        t.join();
    EXPECT_EQ(a.read().size(), 2 * perWriter);
    EXPECT_EQ(a.verify(), QString());
}

TEST(AuditLog, ALastLineLongerThanTheTailReadKeepsTheChain)
{
    QTemporaryDir dir;
    AuditLog log(AuditLog::pathIn(dir.path()));
    AuditEntry big = entry(QStringLiteral("gpu-1"), QStringLiteral("refused-unknown"));
    // Past the 64 KiB tail that append() reads to find the last line.
    big.detail = QString(100 * 1024, u'x');
    ASSERT_TRUE(log.append(big));
    ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-2"), QStringLiteral("accepted-new"))));
    EXPECT_EQ(log.verify(), QString());
}

TEST(AuditLog, AnIncompleteLastLineIsNeverMergedWithTheNextEntry)
{
    QTemporaryDir dir;
    AuditLog log(AuditLog::pathIn(dir.path()));
    ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-1"), QStringLiteral("refused-unknown"))));
    QFile file(log.path());
    ASSERT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Append));
    file.write("{\"time\":\"cut off"); // e.g. a disk that filled up under another writer
    file.close();
    ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-2"), QStringLiteral("accepted-new"))));
    QStringList problems;
    const auto entries = log.read(&problems);
    ASSERT_EQ(entries.size(), 2);
    EXPECT_EQ(entries[1].host, QStringLiteral("gpu-2"));
    EXPECT_EQ(problems.size(), 1);
    // The cut-off line is the one break; the new entry chains to it.
    EXPECT_EQ(log.verify(), log.path() + QStringLiteral(":2: not a JSON object"));
}

TEST(AuditLog, AnUnusableLockFileFailsAtOnceNamingTheFile)
{
    QTemporaryDir dir;
    AuditLog log(AuditLog::pathIn(dir.path()));
    // A directory where the lock file goes: QLockFile cannot create it.
    ASSERT_TRUE(QDir(dir.path()).mkdir(QStringLiteral("audit.jsonl.lock")));
    QString error;
    QElapsedTimer timer;
    timer.start();
    EXPECT_FALSE(
        log.append(entry(QStringLiteral("gpu-1"), QStringLiteral("refused-unknown")), &error));
    EXPECT_LT(timer.elapsed(), 5000) << "waited as if another process held the lock";
    EXPECT_TRUE(error.contains(log.path() + QStringLiteral(".lock"))) << error.toStdString();
    EXPECT_FALSE(error.contains(QStringLiteral("another process"))) << error.toStdString();
}

TEST(AuditLog, AnAuditFileThatIsADirectoryFailsNamingIt)
{
    QTemporaryDir dir;
    AuditLog log(AuditLog::pathIn(dir.path()));
    ASSERT_TRUE(QDir(dir.path()).mkdir(QStringLiteral("audit.jsonl")));
    QString error;
    EXPECT_FALSE(
        log.append(entry(QStringLiteral("gpu-1"), QStringLiteral("refused-unknown")), &error));
    EXPECT_TRUE(error.startsWith(QStringLiteral("audit log ") + log.path())) << error.toStdString();
    EXPECT_EQ(log.verify(), QString());
}

TEST(HostKeyAuditor, MatchedIsNotWrittenAndARepeatedRefusalOnlyOnce)
{
    QTemporaryDir dir;
    auto log = std::make_shared<AuditLog>(AuditLog::pathIn(dir.path()));
    opsdeck::hosts::HostKeyAuditor auditor(log);
    opsdeck::remote::HostKeyDecision d;
    d.host = QStringLiteral("gpu-1");
    d.hostEntry = QStringLiteral("[127.0.0.1]:2222");
    d.keyType = QStringLiteral("ssh-ed25519");
    d.fingerprint = QStringLiteral("SHA256:xyz");
    d.knownHostsFile = QStringLiteral("/tmp/kh");
    d.outcome = QStringLiteral("matched");
    auditor.record(d);
    EXPECT_TRUE(log->read().isEmpty());
    d.outcome = QStringLiteral("refused-unknown");
    d.message = QStringLiteral("unknown host key for [127.0.0.1]:2222\nsecond line");
    for (int i = 0; i < 5; ++i)
        auditor.record(d);
    d.outcome = QStringLiteral("accepted-new");
    d.message.clear();
    auditor.record(d);
    auditor.recordOperatorAnswer(QStringLiteral("gpu-1"), d.keyType, d.fingerprint, false);
    const auto entries = log->read();
    ASSERT_EQ(entries.size(), 3);
    EXPECT_EQ(entries[0].action, QStringLiteral("refused-unknown"));
    EXPECT_TRUE(entries[0].detail.contains(QStringLiteral("SHA256:xyz")));
    EXPECT_TRUE(entries[0].detail.contains(QStringLiteral("unknown host key")));
    EXPECT_FALSE(entries[0].detail.contains(QStringLiteral("second line")));
    EXPECT_EQ(entries[1].action, QStringLiteral("accepted-new"));
    EXPECT_EQ(entries[2].action, QStringLiteral("refused-by-operator"));
    EXPECT_EQ(log->verify(), QString());
}
