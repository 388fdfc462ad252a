// `opsdeck-cli audit` and `audit --verify` as a user runs them: the JSON keys
// of the contract, and exit 0 intact, 1 broken (naming the line) or truncated.
#include "auditkey.h"
#include "auditlog.h"
#include "clitest.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <gtest/gtest.h>
#include <sys/stat.h>

using opsdeck::history::AuditEntry;
using opsdeck::history::AuditKey;
using opsdeck::history::AuditLog;
using opsdeck::test::runCli;

namespace {

// Written the way the CLI writes it: keyed and anchored by the secret store
// when one answers.
void writeEntries(const QString &dataDir, int count, int first = 0)
{
    const auto log = AuditKey::inDataDir(dataDir);
    for (int i = first; i < first + count; ++i) {
        AuditEntry entry;
        entry.kind = QStringLiteral("host-key");
        entry.host = QStringLiteral("gpu-%1").arg(i);
        entry.action = QStringLiteral("accepted-new");
        entry.detail = QStringLiteral("ssh-ed25519 SHA256:abc%1").arg(i);
        QString error;
        ASSERT_TRUE(log->append(entry, &error)) << error.toStdString();
    }
    AuditKey::settle(); // the anchors are kept before the log is looked at, as the CLI does
}

} // namespace

TEST(CliAudit, ListsEveryEntryWithTheKeysOfTheContract)
{
    QTemporaryDir dir;
    writeEntries(dir.path(), 2);
    const auto run = runCli({QStringLiteral("audit"), QStringLiteral("--json"),
                             QStringLiteral("--data-dir"), dir.path()});
    ASSERT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    const QJsonArray entries = run.json().array();
    ASSERT_EQ(entries.size(), 2);
    const QJsonObject first = entries.at(0).toObject();
    for (const char *key : {"id", "time", "user", "program", "kind", "host", "action", "detail"})
        EXPECT_TRUE(first.contains(QLatin1String(key))) << key;
    EXPECT_EQ(first.value(QStringLiteral("id")).toInt(), 1);
    EXPECT_EQ(entries.at(1).toObject().value(QStringLiteral("id")).toInt(), 2);
    EXPECT_EQ(first.value(QStringLiteral("host")).toString(), QStringLiteral("gpu-0"));
    EXPECT_FALSE(first.value(QStringLiteral("user")).toString().isEmpty());
}

TEST(CliAudit, VerifySaysIntactBrokenAtALineOrTruncatedWithItsExitCode)
{
    QTemporaryDir dir;
    writeEntries(dir.path(), 3);
    const QStringList verify{QStringLiteral("audit"), QStringLiteral("--verify"),
                             QStringLiteral("--data-dir"), dir.path()};
    auto run = runCli(verify);
    EXPECT_EQ(run.exitCode, 0) << run.standardOutput.toStdString();
    EXPECT_TRUE(run.standardOutput.contains("intact, 3 entries"))
        << run.standardOutput.toStdString();
    EXPECT_TRUE(run.standardOutput.contains("chain: ")) << run.standardOutput.toStdString();

    const QString path = AuditLog::pathIn(dir.path());
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray original = file.readAll();
    file.close();
    QByteArray edited = original;
    edited.replace("\"host\":\"gpu-1\"", "\"host\":\"gpu-9\"");
    ASSERT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(edited);
    file.close();
    run = runCli(QStringList(verify) << QStringLiteral("--json"));
    EXPECT_EQ(run.exitCode, 1);
    EXPECT_EQ(run.json().object().value(QStringLiteral("status")).toString(),
              QStringLiteral("broken"));
    EXPECT_EQ(run.json().object().value(QStringLiteral("line")).toInt(), 3);

    QByteArray cut = original;
    cut.truncate(cut.lastIndexOf('\n', cut.size() - 2) + 1);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(cut);
    file.close();
    run = runCli(verify);
    EXPECT_EQ(run.exitCode, 1);
    EXPECT_TRUE(run.standardOutput.contains("TRUNCATED: the head says 3 entries, the file has 2"))
        << run.standardOutput.toStdString();
}

// The keyring remembers how far the log went: an older log put back with its
// older head (each valid alone) is TRUNCATED, exit 1.
TEST(CliAudit, AnOlderLogAndHeadPutBackAreCaughtByTheKeyringsAnchor)
{
    QTemporaryDir dir;
    writeEntries(dir.path(), 3);
    const QString path = AuditLog::pathIn(dir.path());
    QFile log(path);
    QFile head(path + QStringLiteral(".head"));
    ASSERT_TRUE(log.open(QIODevice::ReadOnly) && head.open(QIODevice::ReadOnly));
    const QByteArray olderLog = log.readAll();
    const QByteArray olderHead = head.readAll();
    log.close();
    head.close();
    writeEntries(dir.path(), 2, 3);
    const QStringList verify{QStringLiteral("audit"), QStringLiteral("--verify"),
                             QStringLiteral("--data-dir"), dir.path()};
    auto run = runCli(verify);
    ASSERT_EQ(run.exitCode, 0) << run.standardOutput.toStdString();
    EXPECT_TRUE(run.standardOutput.contains("anchored at entry 5"))
        << run.standardOutput.toStdString();

    ASSERT_TRUE(log.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
                head.open(QIODevice::WriteOnly | QIODevice::Truncate));
    log.write(olderLog);
    head.write(olderHead);
    log.close();
    head.close();
    run = runCli(verify);
    EXPECT_EQ(run.exitCode, 1);
    EXPECT_TRUE(run.standardOutput.contains("the secret store's anchor says this log held 5 "
                                            "entries, the file has 3"))
        << run.standardOutput.toStdString();
}

// A long-running writer (the window, a workflow) read the anchor when it
// began. Another process appends and moves the anchor on; an older log and
// head are put back; the long-running writer then appends over the older log.
// The anchor the other process left stays, and `--verify` fails (exit 1)
// rather than read intact without the other process's entries.
TEST(CliAudit, AnOlderLogPutBackUnderALongRunningWriterIsStillCaught)
{
    QTemporaryDir dir;
    const auto longRunning = AuditKey::inDataDir(dir.path());
    const auto append = [](AuditLog &log, int i) {
        AuditEntry entry;
        entry.kind = QStringLiteral("workflow");
        entry.host = QStringLiteral("gpu-%1").arg(i);
        entry.action = QStringLiteral("step-start");
        QString error;
        EXPECT_TRUE(log.append(entry, &error)) << error.toStdString();
    };
    for (int i = 0; i < 3; ++i)
        append(*longRunning, i);
    AuditKey::settle();
    const QString path = AuditLog::pathIn(dir.path());
    const QByteArray olderLog = opsdeck::test::readFile(path);
    const QByteArray olderHead = opsdeck::test::readFile(path + QStringLiteral(".head"));
    // Another process: a knob edit, its anchor at entry 5.
    const QStringList verify{QStringLiteral("audit"), QStringLiteral("--verify"),
                             QStringLiteral("--data-dir"), dir.path()};
    {
        AuditLog other(path, AuditKey::fromSecretStore(), AuditKey::anchorSink());
        append(other, 3);
        append(other, 4);
        AuditKey::settle();
    }
    auto run = runCli(verify);
    ASSERT_EQ(run.exitCode, 0) << run.standardOutput.toStdString();
    ASSERT_TRUE(run.standardOutput.contains("anchored at entry 5"))
        << run.standardOutput.toStdString();

    ASSERT_TRUE(opsdeck::test::writeFile(path, olderLog));
    ASSERT_TRUE(opsdeck::test::writeFile(path + QStringLiteral(".head"), olderHead));
    append(*longRunning, 5);
    append(*longRunning, 6);
    AuditKey::settle();
    run = runCli(verify);
    EXPECT_EQ(run.exitCode, 1) << run.standardOutput.toStdString();
    EXPECT_TRUE(run.standardOutput.contains("line 5 is not the entry the secret store's anchor "
                                            "names"))
        << run.standardOutput.toStdString();
}

// A locked keychain (no prompt can be shown) answers "no such key" for the
// key it holds: an unkeyed log must then be NOT VERIFIED (exit 3), never
// intact, because a keyed log rewritten without its key looks the same. The
// keychain here is a private gnome-keyring, locked through the Secret
// Service, in its own D-Bus session (the suite's shared one stays unlocked);
// then the default alias is pointed at another, unlocked collection.
TEST(CliAudit, ALockedKeychainLeavesAnUnkeyedLogNotVerified)
{
    QTemporaryDir dir;
    const QString data = dir.filePath(QStringLiteral("data"));
    {
        AuditLog log(AuditLog::pathIn(data), [](const QString &, bool) {
            return AuditLog::ChainKey{AuditLog::ChainKey::State::Unavailable, {}, {}};
        });
        AuditEntry entry;
        entry.kind = QStringLiteral("host-key");
        entry.host = QStringLiteral("gpu-0");
        entry.action = QStringLiteral("accepted-new");
        QString error;
        ASSERT_TRUE(log.append(entry, &error)) << error.toStdString();
    }
    const QString verify = opsdeck::test::binPath(QStringLiteral("opsdeck-cli")) +
                           QStringLiteral(" audit --verify --data-dir '") + data + u'\'';
    const QString lock = QStringLiteral(
        "dbus-send --session --dest=org.freedesktop.secrets --print-reply /org/freedesktop/secrets "
        "org.freedesktop.Secret.Service.Lock "
        "array:objpath:/org/freedesktop/secrets/aliases/default >/dev/null");
    // The default alias pointed at the always-unlocked session collection:
    // the locked login collection still holds the key.
    const QString realias = QStringLiteral(
        "dbus-send --session --dest=org.freedesktop.secrets --print-reply /org/freedesktop/secrets "
        "org.freedesktop.Secret.Service.SetAlias string:default "
        "objpath:/org/freedesktop/secrets/collection/session >/dev/null");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"HOME", "XDG_RUNTIME_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME"}) {
        const QString home = dir.filePath(QString::fromLatin1(name));
        ASSERT_TRUE(QDir().mkpath(home));
        QFile::setPermissions(home, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        env.insert(QString::fromLatin1(name), home);
    }
    QProcess session;
    session.setProcessEnvironment(env);
    session.setStandardInputFile(QProcess::nullDevice());
    session.start(QStringLiteral("timeout"),
                  {QStringLiteral("60"), QStringLiteral("dbus-run-session"), QStringLiteral("--"),
                   QStringLiteral("sh"), QStringLiteral("-c"),
                   QStringLiteral("echo -n opsdeck-test | gnome-keyring-daemon --unlock "
                                  "--components=secrets >/dev/null || exit 9; ") +
                       verify + QStringLiteral("; echo \"unlocked-exit=$?\"; ") + lock +
                       QStringLiteral(" || exit 9; ") + verify +
                       QStringLiteral("; echo \"locked-exit=$?\"; ") + realias +
                       QStringLiteral(" || exit 9; ") + verify +
                       QStringLiteral("; echo \"realiased-exit=$?\"")});
    ASSERT_TRUE(session.waitForFinished(70000));
    const QString out = QString::fromUtf8(session.readAllStandardOutput());
    ASSERT_EQ(session.exitCode(), 0)
        << out.toStdString() << session.readAllStandardError().toStdString();
    const qsizetype split = out.indexOf(QStringLiteral("unlocked-exit="));
    ASSERT_GE(split, 0) << out.toStdString();
    const QString unlocked = out.left(split);
    const QString locked = out.mid(split);
    EXPECT_TRUE(out.contains(QStringLiteral("unlocked-exit=0"))) << out.toStdString();
    EXPECT_TRUE(unlocked.contains(QStringLiteral("intact, 1 entries"))) << out.toStdString();
    EXPECT_TRUE(out.contains(QStringLiteral("locked-exit=3"))) << out.toStdString();
    EXPECT_TRUE(locked.contains(QStringLiteral("NOT VERIFIED"))) << out.toStdString();
    EXPECT_TRUE(locked.contains(QStringLiteral("is locked"))) << out.toStdString();
    EXPECT_TRUE(out.contains(QStringLiteral("realiased-exit=3"))) << out.toStdString();
}

// A FIFO in the log's place: refused at once, said without a line number
// nobody could look up, and without an empty "chain:" line.
TEST(CliAudit, VerifyOfAFifoNamesWhatItIsWithoutALineZero)
{
    QTemporaryDir dir;
    ASSERT_EQ(::mkfifo(QFile::encodeName(AuditLog::pathIn(dir.path())).constData(), 0600), 0);
    const auto run = runCli({QStringLiteral("audit"), QStringLiteral("--verify"),
                             QStringLiteral("--data-dir"), dir.path()});
    EXPECT_EQ(run.exitCode, 1) << run.standardOutput.toStdString();
    EXPECT_TRUE(run.standardOutput.contains("BROKEN: ") && run.standardOutput.contains("a FIFO"))
        << run.standardOutput.toStdString();
    EXPECT_FALSE(run.standardOutput.contains("line 0")) << run.standardOutput.toStdString();
    EXPECT_FALSE(run.standardOutput.contains("chain: \n")) << run.standardOutput.toStdString();
}
