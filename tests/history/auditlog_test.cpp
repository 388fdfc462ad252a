// The audit log: entries read back as written, a hash chain that names the
// first edited line, and appends from several writers at once that keep it.
#include "auditlog.h"
#include "hostkeyauditor.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
#include <QTemporaryDir>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <memory>
#include <mutex>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using opsdeck::history::AuditAnchor;
using opsdeck::history::AuditEntry;
using opsdeck::history::AuditLog;
using opsdeck::history::AuditVerification;

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

using KeyState = AuditLog::ChainKey::State;

AuditLog::KeySource fixedKey(const QByteArray &key)
{
    // As the secret store: the key is made once, for the log's first entry.
    auto made = std::make_shared<bool>(false);
    return [key, made](const QString &, bool create) {
        const bool created = create && !*made;
        *made = *made || create;
        return AuditLog::ChainKey{KeyState::Key, key, {}, created};
    };
}

// As the secret store keeps them: the key made for the first entry, and the
// anchor each append moves forward.
struct AnchoredKey
{
    AuditLog::KeySource source;
    AuditLog::AnchorSink sink;
};

AnchoredKey anchoredKey(const QByteArray &key)
{
    auto anchor = std::make_shared<std::optional<AuditAnchor>>();
    const AuditLog::KeySource made = fixedKey(key);
    return {[made, anchor](const QString &path, bool create) {
                AuditLog::ChainKey chain = made(path, create);
                chain.anchor = *anchor;
                return chain;
            },
            [anchor](const QString &, const AuditAnchor &moved) { *anchor = moved; }};
}

// A store that answers: this log has no key (it was begun without one).
AuditLog::KeySource storeHasNone()
{
    return [](const QString &, bool) { return AuditLog::ChainKey{KeyState::None, {}, {}}; };
}

// No store answers at all.
AuditLog::KeySource noKey()
{
    return [](const QString &, bool) {
        return AuditLog::ChainKey{
            KeyState::Unavailable, {}, QStringLiteral("no store in this test")};
    };
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeAll(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(bytes);
}

// What someone without the key can do: edit a line, then recompute every
// `prev` as plain SHA-256 (dropping `keyed`) and rewrite the head to match.
void forgeUnkeyed(const AuditLog &log, const QByteArray &from, const QByteArray &to)
{
    QByteArray text = readAll(log.path());
    text.replace(from, to);
    QByteArrayList lines = text.split('\n');
    lines.removeLast();
    QByteArray prev(64, '0');
    QByteArray out;
    for (const QByteArray &line : std::as_const(lines)) {
        QJsonObject o = QJsonDocument::fromJson(line).object();
        o.remove(QStringLiteral("keyed"));
        o[QStringLiteral("prev")] = QString::fromLatin1(prev);
        const QByteArray json = QJsonDocument(o).toJson(QJsonDocument::Compact);
        prev = QCryptographicHash::hash(json, QCryptographicHash::Sha256).toHex();
        out += json + '\n';
    }
    writeAll(log.path(), out);
    QJsonObject head;
    head[QStringLiteral("entries")] = lines.size();
    head[QStringLiteral("bytes")] = out.size();
    head[QStringLiteral("last")] = QString::fromLatin1(prev);
    head[QStringLiteral("keyed")] = false;
    writeAll(log.headPath(), QJsonDocument(head).toJson(QJsonDocument::Compact));
}

// `count` entries in the keyed log at `path`.
void appendKeyed(const QString &path, const QByteArray &key, int count)
{
    AuditLog log(path, fixedKey(key));
    for (int i = 0; i < count; ++i)
        ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-%1").arg(i), QStringLiteral("x"))));
}

// A writer of the keyed log at `path` killed in the middle of its line: a
// child process whose file size limit is `limit` bytes appends an entry
// longer than that, and SIGXFSZ ends it, as `ulimit -f` does. Whether it
// ended so.
bool killedMidLine(const QString &path, const QByteArray &key, qint64 limit)
{
    const pid_t child = ::fork();
    if (child < 0)
        return false;
    if (child == 0) {
        rlimit small{};
        ::getrlimit(RLIMIT_FSIZE, &small);
        small.rlim_cur = rlim_t(limit);
        ::setrlimit(RLIMIT_FSIZE, &small);
        AuditLog log(path, fixedKey(key));
        AuditEntry big = entry(QStringLiteral("gpu-2"), QStringLiteral("edit"));
        big.detail = QString(4096, u'x');
        log.append(big);
        ::_exit(0); // not reached: SIGXFSZ ends it in the middle of the line
    }
    int status = 0;
    return ::waitpid(child, &status, 0) == child && WIFSIGNALED(status) &&
           WTERMSIG(status) == SIGXFSZ;
}

} // namespace

TEST(AuditLog, ACutOffEndIsCaughtByTheHeadAndStaysVisibleAfterTheNextAppend)
{
    QTemporaryDir dir;
    AuditLog log(AuditLog::pathIn(dir.path()), storeHasNone());
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-%1").arg(i), QStringLiteral("x"))));
    EXPECT_TRUE(log.check().ok());
    QByteArray text = readAll(log.path());
    text.truncate(text.lastIndexOf('\n', text.size() - 2) + 1); // the last entry cut off
    writeAll(log.path(), text);
    AuditVerification result = log.check();
    EXPECT_EQ(result.status, AuditVerification::Status::Truncated);
    EXPECT_EQ(result.reason, QStringLiteral("the head says 3 entries, the file has 2"));
    EXPECT_EQ(log.verify(), log.path() + QStringLiteral(": truncated: the head says 3 entries, "
                                                        "the file has 2"));
    // Counted on from the head: the lost entry is still missing after another one.
    ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-9"), QStringLiteral("x"))));
    result = log.check();
    EXPECT_EQ(result.status, AuditVerification::Status::Truncated);
    EXPECT_EQ(result.reason, QStringLiteral("the head says 4 entries, the file has 3"));
}

// An older log put back with its older head is valid on its own: the anchor
// the secret store keeps catches it, and still does once entries follow.
TEST(AuditLog, AnOlderLogPutBackWithItsOlderHeadIsCaughtByTheAnchor)
{
    QTemporaryDir dir;
    const QString path = AuditLog::pathIn(dir.path());
    const QByteArray key(32, 'k');
    // The store: the key, and the anchor as the sink last kept it.
    auto stored = std::make_shared<std::optional<AuditAnchor>>();
    const AuditLog::KeySource keyOnly = fixedKey(key);
    const AuditLog::KeySource source = [keyOnly, stored](const QString &log, bool create) {
        AuditLog::ChainKey chain = keyOnly(log, create);
        chain.anchor = *stored;
        return chain;
    };
    const AuditLog::AnchorSink sink = [stored](const QString &, const AuditAnchor &anchor) {
        *stored = anchor;
    };
    {
        AuditLog log(path, source, sink);
        for (int i = 0; i < 3; ++i)
            ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-%1").arg(i), QStringLiteral("x"))));
        EXPECT_TRUE(log.check().ok());
    }
    const QByteArray olderLog = readAll(path);
    const QByteArray olderHead = readAll(path + QStringLiteral(".head"));
    {
        AuditLog later(path, source, sink); // another process, later
        for (int i = 3; i < 5; ++i)
            ASSERT_TRUE(later.append(entry(QStringLiteral("gpu-%1").arg(i), QStringLiteral("x"))));
        EXPECT_TRUE(later.check().ok()) << later.verify().toStdString();
    }
    ASSERT_TRUE(stored->has_value());
    EXPECT_EQ((*stored)->entries, 5);

    writeAll(path, olderLog);
    writeAll(path + QStringLiteral(".head"), olderHead);
    EXPECT_TRUE(AuditLog(path, keyOnly).check().ok()) << "the head alone cannot tell";
    AuditLog log(path, source, sink);
    AuditVerification result = log.check();
    EXPECT_EQ(result.status, AuditVerification::Status::Truncated);
    EXPECT_EQ(result.reason, QStringLiteral("the secret store's anchor says this log held 5 "
                                            "entries, the file has 3 (its end was cut off, and an "
                                            "older head put back)"));
    // Written on past the anchor: the anchor stays, and names the line.
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-%1").arg(i + 7), QStringLiteral("x"))));
    EXPECT_EQ((*stored)->entries, 5);
    result = AuditLog(path, source, sink).check();
    EXPECT_EQ(result.status, AuditVerification::Status::Broken);
    EXPECT_EQ(result.line, 5);
    EXPECT_TRUE(result.reason.contains(u"is not the entry the secret store's anchor names"))
        << result.reason.toStdString();
    EXPECT_TRUE(result.keyNote.contains(u"anchored at entry 5")) << result.keyNote.toStdString();
}

TEST(AuditAnchor, ReadsBackWhatItWritesAndRefusesAnythingElse)
{
    const AuditAnchor anchor{42, QByteArray(64, 'a')};
    const std::optional<AuditAnchor> back = AuditAnchor::parse(anchor.text());
    ASSERT_TRUE(back);
    EXPECT_EQ(back->entries, 42);
    EXPECT_EQ(back->link, anchor.link);
    for (const char *bad : {"", "42", "x ", "0 aaaa", "-1 aaaa", "42 abc", "42 a b"})
        EXPECT_FALSE(AuditAnchor::parse(bad)) << bad;
}

TEST(AuditLog, LinesAddedBehindTheHeadAreNamed)
{
    QTemporaryDir dir;
    AuditLog log(AuditLog::pathIn(dir.path()), storeHasNone());
    for (int i = 0; i < 2; ++i)
        ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-%1").arg(i), QStringLiteral("x"))));
    const QByteArray head = readAll(log.headPath());
    ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-2"), QStringLiteral("x"))));
    writeAll(log.headPath(), head); // as if the third line had been added by hand
    const AuditVerification result = log.check();
    EXPECT_EQ(result.status, AuditVerification::Status::Broken);
    EXPECT_EQ(result.line, 3);
}

TEST(AuditLog, AKeyedChainRecomputedWithoutTheKeyFails)
{
    QTemporaryDir dir;
    const QByteArray key(32, 'k');
    AuditLog log(AuditLog::pathIn(dir.path()), fixedKey(key));
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-%1").arg(i), QStringLiteral("x"))));
    AuditVerification result = log.check();
    ASSERT_TRUE(result.ok()) << result.reason.toStdString();
    EXPECT_TRUE(result.keyed);
    EXPECT_TRUE(result.keyNote.startsWith(QStringLiteral("keyed"))) << result.keyNote.toStdString();

    forgeUnkeyed(log, "\"host\":\"gpu-1\"", "\"host\":\"gpu-7\"");
    result = log.check();
    EXPECT_EQ(result.status, AuditVerification::Status::Broken) << result.reason.toStdString();

    // The same forgery of a log that never had a key passes, and says it was unkeyed.
    QTemporaryDir plainDir;
    AuditLog plain(AuditLog::pathIn(plainDir.path()), storeHasNone());
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(plain.append(entry(QStringLiteral("gpu-%1").arg(i), QStringLiteral("x"))));
    forgeUnkeyed(plain, "\"host\":\"gpu-1\"", "\"host\":\"gpu-7\"");
    result = plain.check();
    EXPECT_TRUE(result.ok()) << result.reason.toStdString();
    EXPECT_FALSE(result.keyed);
    EXPECT_TRUE(result.keyNote.startsWith(QStringLiteral("unkeyed")))
        << result.keyNote.toStdString();
    EXPECT_TRUE(result.keyNote.contains(QStringLiteral("begun without a secret store")));

    // A keyed log forged unkeyed, checked where no store answers: not intact.
    const AuditVerification unknown = AuditLog(log.path(), noKey()).check();
    EXPECT_EQ(unknown.status, AuditVerification::Status::Unverified)
        << unknown.reason.toStdString();
    EXPECT_TRUE(unknown.reason.contains(u"whether this log has a key"))
        << unknown.reason.toStdString();
}

// A log with an unkeyed head never gains a key on the next append: that is
// what a keyed log rewritten without its key looks like. The new head says
// from which entry the earlier lines cannot be vouched for, for good.
TEST(AuditLog, AnUnkeyedHeadThatMeetsTheKeyIsReportedNotBlessed)
{
    QTemporaryDir dir;
    const QString path = AuditLog::pathIn(dir.path());
    const QByteArray key(32, 'k');
    AuditLog keyed(path, fixedKey(key));
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(keyed.append(entry(QStringLiteral("gpu-%1").arg(i), QStringLiteral("x"))));
    forgeUnkeyed(keyed, "\"host\":\"gpu-0\"", "\"host\":\"gpu-7\"");
    EXPECT_EQ(keyed.check().status, AuditVerification::Status::Broken);
    ASSERT_TRUE(keyed.append(entry(QStringLiteral("gpu-3"), QStringLiteral("x"))));
    EXPECT_EQ(keyed.check().status, AuditVerification::Status::Broken);
    EXPECT_TRUE(readAll(keyed.headPath()).contains("\"head_lost_at\":4"))
        << readAll(keyed.headPath()).toStdString();
    ASSERT_TRUE(keyed.append(entry(QStringLiteral("gpu-4"), QStringLiteral("x"))));
    EXPECT_EQ(keyed.check().status, AuditVerification::Status::Broken)
        << "still, after more entries";
    EXPECT_TRUE(readAll(keyed.headPath()).contains("\"head_lost_at\":4"));
}

// A deleted head (after cutting the end) is not rewritten as if all were well.
TEST(AuditLog, ADeletedHeadIsNeverReplacedByOneThatBlessesTheLog)
{
    QTemporaryDir dir;
    AuditLog log(AuditLog::pathIn(dir.path()), storeHasNone());
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-%1").arg(i), QStringLiteral("x"))));
    QByteArray text = readAll(log.path());
    text.truncate(text.lastIndexOf('\n', text.size() - 2) + 1);
    writeAll(log.path(), text);
    ASSERT_TRUE(QFile::remove(log.headPath()));
    ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-9"), QStringLiteral("x"))));
    const AuditVerification result = log.check();
    EXPECT_EQ(result.status, AuditVerification::Status::Broken);
    EXPECT_EQ(result.line, 3);
    EXPECT_TRUE(result.reason.contains(QStringLiteral("cannot be vouched for")))
        << result.reason.toStdString();
}

// The log and its head removed (or the log emptied) while its key stays in
// the store: the next entry does not start a log that reads as intact.
TEST(AuditLog, ALogRemovedWithItsHeadIsNotBornAgainIntact)
{
    QTemporaryDir dir;
    const AnchoredKey store = anchoredKey(QByteArray(32, 'k'));
    {
        AuditLog log(AuditLog::pathIn(dir.path()), store.source, store.sink);
        for (int i = 0; i < 2; ++i)
            ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-%1").arg(i), QStringLiteral("x"))));
        ASSERT_TRUE(log.check().ok());
    }
    ASSERT_TRUE(QFile::remove(AuditLog::pathIn(dir.path()) + QStringLiteral(".head")));
    writeAll(AuditLog::pathIn(dir.path()), QByteArray());
    {
        AuditLog emptied(AuditLog::pathIn(dir.path()), store.source, store.sink);
        const AuditVerification result = emptied.check();
        EXPECT_EQ(result.status, AuditVerification::Status::Truncated)
            << result.reason.toStdString();
    }
    ASSERT_TRUE(QFile::remove(AuditLog::pathIn(dir.path())));
    // another run of the program
    AuditLog later(AuditLog::pathIn(dir.path()), store.source, store.sink);
    ASSERT_TRUE(later.append(entry(QStringLiteral("gpu-9"), QStringLiteral("x"))));
    const AuditVerification result = later.check();
    EXPECT_EQ(result.status, AuditVerification::Status::Broken) << result.reason.toStdString();
    EXPECT_TRUE(result.reason.contains(QStringLiteral("cannot be vouched for")))
        << result.reason.toStdString();
}

// A first append whose writer died after its key was made and before its
// head was in place leaves an empty log, no head and a key with no anchor:
// the next append begins the log, intact.
TEST(AuditLog, AFirstAppendKilledBeforeItsHeadBeginsTheLogAgain)
{
    QTemporaryDir dir;
    const AnchoredKey store = anchoredKey(QByteArray(32, 'k'));
    ASSERT_TRUE(store.source(AuditLog::pathIn(dir.path()), true).created); // the key was made
    writeAll(AuditLog::pathIn(dir.path()), QByteArray());
    AuditLog log(AuditLog::pathIn(dir.path()), store.source, store.sink);
    ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-1"), QStringLiteral("x"))));
    EXPECT_TRUE(log.check().ok()) << log.verify().toStdString();
    EXPECT_TRUE(log.check().keyed);
}

TEST(AuditLog, AKeyedLogWritesNothingWithoutItsKeyAndChecksNothingItCannot)
{
    QTemporaryDir dir;
    const QString path = AuditLog::pathIn(dir.path());
    AuditLog keyed(path, fixedKey(QByteArray(32, 'k')));
    ASSERT_TRUE(keyed.append(entry(QStringLiteral("gpu-1"), QStringLiteral("x"))));
    AuditLog without(path, noKey());
    QString error;
    EXPECT_FALSE(without.append(entry(QStringLiteral("gpu-2"), QStringLiteral("x")), &error));
    EXPECT_TRUE(error.contains(QStringLiteral("keyed and the key is not available")))
        << error.toStdString();
    EXPECT_EQ(without.read().size(), 1);
    const AuditVerification result = without.check();
    EXPECT_EQ(result.status, AuditVerification::Status::Unverified)
        << "never more than was checked";
    EXPECT_FALSE(result.keyed);
    EXPECT_TRUE(result.keyNote.contains(QStringLiteral("not checked")))
        << result.keyNote.toStdString();
}

// A FIFO in the head's place neither hangs an append (the action waits on
// it) nor a check; a head whose size disagrees with the file is a break.
// A head that cannot be written (a folder planted at its temporary name, a
// full disk) fails the append: the head names an entry before its line goes
// in, so the log is not touched, the refused action leaves no entry saying it
// ran, and the log stays intact.
TEST(AuditLog, AnEntryWhoseHeadCannotBeWrittenLeavesTheLogAsItWas)
{
    QTemporaryDir dir;
    AuditLog log(AuditLog::pathIn(dir.path()), fixedKey(QByteArray(32, 'k')));
    for (int i = 0; i < 2; ++i)
        ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-%1").arg(i), QStringLiteral("x"))));
    const QByteArray before = readAll(log.path());
    ASSERT_TRUE(QDir().mkdir(log.headPath() + QStringLiteral(".tmp")));
    QString error;
    EXPECT_FALSE(log.append(entry(QStringLiteral("gpu-9"), QStringLiteral("edit")), &error));
    EXPECT_TRUE(error.contains(u"cannot write its head")) << error.toStdString();
    EXPECT_TRUE(error.contains(u"nothing was written")) << error.toStdString();
    EXPECT_EQ(readAll(log.path()), before);
    EXPECT_TRUE(log.check().ok()) << log.verify().toStdString();
    ASSERT_TRUE(QDir().rmdir(log.headPath() + QStringLiteral(".tmp")));
    ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-3"), QStringLiteral("x"))));
    EXPECT_TRUE(log.check().ok()) << log.verify().toStdString();
    EXPECT_EQ(log.read().size(), 3);
}

TEST(AuditLog, AFifoHeadIsRefusedAtOnceAndASizeTheHeadDoesNotKnowIsABreak)
{
    QTemporaryDir dir;
    AuditLog log(AuditLog::pathIn(dir.path()), storeHasNone());
    ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-1"), QStringLiteral("x"))));
    const QByteArray head = readAll(log.headPath());
    ASSERT_TRUE(QFile::remove(log.headPath()));
    ASSERT_EQ(::mkfifo(QFile::encodeName(log.headPath()).constData(), 0600), 0);
    QString error;
    EXPECT_FALSE(log.append(entry(QStringLiteral("gpu-2"), QStringLiteral("x")), &error));
    EXPECT_TRUE(error.contains(QStringLiteral("a FIFO"))) << error.toStdString();
    EXPECT_EQ(log.check().status, AuditVerification::Status::Broken);
    ASSERT_TRUE(QFile::remove(log.headPath()));
    writeAll(log.headPath(), head);
    ASSERT_TRUE(log.check().ok());
    QFile file(log.path());
    ASSERT_TRUE(file.open(QIODevice::Append));
    file.write("\n"); // an empty line: the entries still chain, the size does not
    file.close();
    EXPECT_EQ(log.check().status, AuditVerification::Status::Broken);
}

// The window reads the log to list it (the Audit tab): a FIFO in its place
// must not block the GUI thread for ever, and a link is not followed to
// show another file's lines as the audit trail.
TEST(AuditLog, ReadingAFifoOrALinkReturnsAtOnceNamingIt)
{
    QTemporaryDir dir;
    AuditLog log(AuditLog::pathIn(dir.path()), storeHasNone());
    ASSERT_TRUE(QDir().mkpath(dir.path()));
    ASSERT_EQ(::mkfifo(QFile::encodeName(log.path()).constData(), 0600), 0);
    QStringList problems;
    QElapsedTimer clock;
    clock.start();
    std::mutex mutex;
    std::condition_variable answered;
    bool returned = false;
    std::thread opener([&] {
        // Unblocks a reader stuck in open(2) if the code is wrong, so the
        // test fails instead of hanging.
        std::unique_lock lock(mutex);
        if (!answered.wait_for(lock, std::chrono::seconds(5), [&] { return returned; })) {
            const int fd = ::open(QFile::encodeName(log.path()).constData(), O_WRONLY | O_NONBLOCK);
            if (fd >= 0)
                ::close(fd);
        }
    });
    const QVector<AuditEntry> entries = log.read(&problems);
    {
        const std::lock_guard lock(mutex);
        returned = true;
    }
    answered.notify_one();
    opener.join();
    EXPECT_LT(clock.elapsed(), 4000) << "reading a FIFO waited for a writer";
    EXPECT_TRUE(entries.isEmpty());
    ASSERT_EQ(problems.size(), 1);
    EXPECT_TRUE(problems.first().contains(QStringLiteral("a FIFO")) &&
                problems.first().contains(log.path()))
        << problems.first().toStdString();

    ASSERT_TRUE(QFile::remove(log.path()));
    QTemporaryDir other;
    AuditLog elsewhere(AuditLog::pathIn(other.path()), storeHasNone());
    ASSERT_TRUE(elsewhere.append(entry(QStringLiteral("gpu-1"), QStringLiteral("x"))));
    ASSERT_TRUE(QFile::link(elsewhere.path(), log.path()));
    problems.clear();
    EXPECT_TRUE(log.read(&problems).isEmpty());
    ASSERT_EQ(problems.size(), 1);
    EXPECT_TRUE(problems.first().contains(QStringLiteral("symbolic link")))
        << problems.first().toStdString();
}

TEST(AuditLog, FilesAreTheUsersAloneWhateverTheUmaskAndLinksAreNotFollowed)
{
    QTemporaryDir dir;
    const QString data = dir.filePath(QStringLiteral("a/b"));
    const mode_t old = ::umask(0);
    AuditLog log(AuditLog::pathIn(data), storeHasNone());
    const bool appended = log.append(entry(QStringLiteral("gpu-1"), QStringLiteral("x")));
    ::umask(old);
    ASSERT_TRUE(appended);
    const auto mode = [](const QString &path) {
        struct stat st
        {
        };
        return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? int(st.st_mode & 0777) : -1;
    };
    EXPECT_EQ(mode(dir.filePath(QStringLiteral("a"))), 0700);
    EXPECT_EQ(mode(data), 0700);
    EXPECT_EQ(mode(log.path()), 0600);
    EXPECT_EQ(mode(log.headPath()), 0600);

    // A looser mode found later is tightened.
    ASSERT_EQ(::chmod(QFile::encodeName(log.path()).constData(), 0644), 0);
    ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-2"), QStringLiteral("x"))));
    EXPECT_EQ(mode(log.path()), 0600);

    // A link planted in the log's place is refused and its target left alone.
    QTemporaryDir other;
    const QString victim = other.filePath(QStringLiteral("victim"));
    writeAll(victim, "precious\n");
    AuditLog planted(AuditLog::pathIn(other.filePath(QStringLiteral("data"))), storeHasNone());
    ASSERT_TRUE(QDir(other.path()).mkpath(QStringLiteral("data")));
    ASSERT_TRUE(QFile::link(victim, planted.path()));
    QString error;
    EXPECT_FALSE(planted.append(entry(QStringLiteral("gpu-1"), QStringLiteral("x")), &error));
    EXPECT_TRUE(error.contains(QStringLiteral("symbolic link"))) << error.toStdString();
    EXPECT_EQ(readAll(victim), QByteArray("precious\n"));

    // A hard link too: the same file under the log's name.
    ASSERT_TRUE(QFile::remove(planted.path()));
    ASSERT_EQ(::link(QFile::encodeName(victim).constData(),
                     QFile::encodeName(planted.path()).constData()),
              0);
    error.clear();
    EXPECT_FALSE(planted.append(entry(QStringLiteral("gpu-1"), QStringLiteral("x")), &error));
    EXPECT_TRUE(error.contains(QStringLiteral("2 hard links"))) << error.toStdString();
    EXPECT_EQ(readAll(victim), QByteArray("precious\n"));
}

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

// A check made while others append reads the head and the log at different
// moments: it must never call a log broken or truncated for that (it once
// said "line N+1 on was not added by OpsDeck" about an entry just written).
TEST(AuditLog, ACheckWhileOthersAppendNeverReportsABreak)
{
    QTemporaryDir dir;
    const QString path = AuditLog::pathIn(dir.path());
    AuditLog a(path);
    AuditLog b(path);
    ASSERT_TRUE(a.append(entry(QStringLiteral("h"), QStringLiteral("refused-unknown"))));
    std::atomic<int> running{2};
    std::vector<std::thread> writers;
    for (AuditLog *log : {&a, &b})
        writers.emplace_back([log, &running] {
            for (int i = 0; i < 200; ++i)
                log->append(entry(QStringLiteral("h"), QStringLiteral("refused-unknown")));
            --running;
        });
    const AuditLog reader(path);
    int checks = 0;
    QStringList said;
    for (; running > 0 && checks < 20000; ++checks) {
        if (const QString problem = reader.verify(); !problem.isEmpty())
            said << problem;
    }
    for (auto &t : writers)
        t.join();
    EXPECT_TRUE(said.isEmpty()) << said.size() << " of " << checks
                                << " checks: " << said.value(0).toStdString();
    EXPECT_EQ(reader.verify(), QString());
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

// A writer stopped while it holds the lock (SIGSTOP, a debugger) makes the
// others fail after 10 s without writing: the error names the holder's pid,
// so that the person finds it. Here the holder is this test process.
TEST(AuditLog, AnAppendBlockedByAStoppedHolderNamesItsPidAndWritesNothing)
{
    QTemporaryDir dir;
    AuditLog log(AuditLog::pathIn(dir.path()));
    ASSERT_TRUE(log.append(entry(QStringLiteral("gpu-1"), QStringLiteral("accepted-new"))));
    QLockFile holder(log.path() + QStringLiteral(".lock"));
    ASSERT_TRUE(holder.tryLock(0));
    QString error;
    EXPECT_FALSE(
        log.append(entry(QStringLiteral("gpu-2"), QStringLiteral("accepted-new")), &error));
    EXPECT_TRUE(
        error.contains(QStringLiteral("pid %1 on ").arg(QCoreApplication::applicationPid())))
        << error.toStdString();
    EXPECT_TRUE(error.contains(log.path() + QStringLiteral(".lock"))) << error.toStdString();
    holder.unlock();
    EXPECT_EQ(log.read().size(), 1);
}

// A first entry whose line does not fit (a full disk; here a file size
// limit) leaves no keyed head behind: the key made for it may never reach
// the store, and a head naming it would refuse every later entry.
TEST(AuditLog, AFirstEntryThatDidNotGoInLeavesNoHeadToRefuseTheNext)
{
    QTemporaryDir dir;
    const QString path = AuditLog::pathIn(dir.path());
    AuditEntry big = entry(QStringLiteral("gpu-1"), QStringLiteral("edit"));
    big.detail = QString(4096, u'x');
    {
        AuditLog keyed(path, fixedKey(QByteArray(32, 'k')));
        rlimit was{};
        ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &was), 0);
        const auto previous = std::signal(SIGXFSZ, SIG_IGN);
        rlimit small = was;
        small.rlim_cur = 2048; // the head fits, the line does not
        ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
        QString error;
        const bool written = keyed.append(big, &error);
        ::setrlimit(RLIMIT_FSIZE, &was);
        std::signal(SIGXFSZ, previous);
        ASSERT_FALSE(written);
        EXPECT_FALSE(error.isEmpty());
    }
    EXPECT_EQ(QFileInfo(path).size(), 0);
    EXPECT_FALSE(QFileInfo::exists(path + QStringLiteral(".head")));
    // The store never kept that key: the next process finds none, and writes.
    AuditLog next(path, storeHasNone());
    QString error;
    EXPECT_TRUE(next.append(entry(QStringLiteral("gpu-1"), QStringLiteral("edit")), &error))
        << error.toStdString();
    EXPECT_EQ(next.read().size(), 1);
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
    // Not an empty log: what is there cannot be read, and check says so.
    EXPECT_TRUE(log.verify().contains(QStringLiteral("is not a regular file (a folder)")))
        << log.verify().toStdString();
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
    auditor.flush(); // the answer is written on the auditor's thread
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

// A writer killed in the middle of its line (here by the file size limit's
// SIGXFSZ, as `ulimit -f` does) leaves the start of an entry its head names
// as pending. That entry's action never ran: the log reads intact, saying
// so, and the next entry takes the cut line out instead of chaining to it
// (the log had read BROKEN for good).
TEST(AuditLog, AnEntryCutOffByItsWritersDeathIsTakenOutAndTheChainGoesOn)
{
    QTemporaryDir dir;
    const QString path = AuditLog::pathIn(dir.path());
    const QByteArray key(32, 'k');
    appendKeyed(path, key, 2);
    const qint64 whole = QFileInfo(path).size();
    ASSERT_TRUE(killedMidLine(path, key, whole + 100)); // the head fits, the line does not
    ASSERT_GT(QFileInfo(path).size(), whole) << "a part of the line is in";

    AuditLog after(path, fixedKey(key));
    AuditVerification checked = after.check();
    EXPECT_EQ(checked.status, AuditVerification::Status::Intact) << checked.reason.toStdString();
    EXPECT_EQ(checked.entries, 2);
    EXPECT_TRUE(checked.reason.contains(QStringLiteral("entry 3 was cut off mid-line")))
        << checked.reason.toStdString();
    ASSERT_TRUE(after.append(entry(QStringLiteral("gpu-3"), QStringLiteral("x"))));
    checked = after.check();
    EXPECT_EQ(checked.status, AuditVerification::Status::Intact) << checked.reason.toStdString();
    EXPECT_EQ(checked.entries, 3);
    EXPECT_TRUE(checked.keyed);
    QStringList problems;
    EXPECT_EQ(after.read(&problems).size(), 3);
    EXPECT_TRUE(problems.isEmpty()) << problems.join(u'\n').toStdString();
}

// Only the start of the pending entry's own line is taken out: bytes of
// someone else's at the end of the log (a note added by hand) stay, with a
// writer killed after them, and under a head no key vouches for (a forged
// one, here, in a log without a secret store).
TEST(AuditLog, BytesThatAreNotACutOffEntryAreNeverTakenOut)
{
    QTemporaryDir dir;
    const QString path = AuditLog::pathIn(dir.path());
    const QByteArray key(32, 'k');
    appendKeyed(path, key, 2);
    const QByteArray note = "NOTE by ops: suspicious";
    {
        QFile file(path);
        ASSERT_TRUE(file.open(QIODevice::Append));
        file.write(note);
    }
    ASSERT_TRUE(killedMidLine(path, key, QFileInfo(path).size() + 60));
    AuditLog after(path, fixedKey(key));
    EXPECT_EQ(after.check().status, AuditVerification::Status::Broken);
    ASSERT_TRUE(after.append(entry(QStringLiteral("gpu-3"), QStringLiteral("x"))));
    EXPECT_TRUE(readAll(path).contains(note));
    EXPECT_EQ(after.check().status, AuditVerification::Status::Broken);

    // No key: a head saying an entry was pending is not taken at its word.
    const QString unkeyed = dir.filePath(QStringLiteral("unkeyed/audit.jsonl"));
    AuditLog plain(unkeyed, storeHasNone());
    ASSERT_TRUE(plain.append(entry(QStringLiteral("gpu-1"), QStringLiteral("x"))));
    const qint64 counted = QFileInfo(unkeyed).size();
    const QByteArray stray = "{\"action\":\"added by hand";
    {
        QFile file(unkeyed);
        ASSERT_TRUE(file.open(QIODevice::Append));
        file.write(stray);
    }
    QJsonObject head = QJsonDocument::fromJson(readAll(plain.headPath())).object();
    head[QStringLiteral("pending_bytes")] = counted + 500;
    head[QStringLiteral("pending_last")] = QString(64, u'0');
    head[QStringLiteral("pending_from")] = counted;
    writeAll(plain.headPath(), QJsonDocument(head).toJson(QJsonDocument::Compact));
    ASSERT_TRUE(plain.append(entry(QStringLiteral("gpu-2"), QStringLiteral("x"))));
    EXPECT_TRUE(readAll(unkeyed).contains(stray));
}

// The key alone is made for a new log before its first entry (a first
// `audit --verify` made it): only the anchor, kept once an entry went in,
// says a log that is gone with its head existed.
TEST(AuditLog, AKeyWithoutAnAnchorIsNoSignThatALogExisted)
{
    QTemporaryDir dir;
    const QString path = AuditLog::pathIn(dir.path());
    const AnchoredKey store = anchoredKey(QByteArray(32, 'k'));
    ASSERT_TRUE(store.source(path, true).created);
    AuditLog fresh(path, store.source, store.sink);
    AuditVerification checked = fresh.check();
    EXPECT_TRUE(checked.ok()) << checked.reason.toStdString();
    ASSERT_TRUE(fresh.append(entry(QStringLiteral("gpu-1"), QStringLiteral("x"))));
    ASSERT_TRUE(QFile::remove(path));
    ASSERT_TRUE(QFile::remove(fresh.headPath()));
    checked = AuditLog(path, store.source, store.sink).check();
    EXPECT_EQ(checked.status, AuditVerification::Status::Truncated) << checked.reason.toStdString();
    EXPECT_TRUE(checked.reason.contains(QStringLiteral("anchor says it held 1 entries")))
        << checked.reason.toStdString();
}
