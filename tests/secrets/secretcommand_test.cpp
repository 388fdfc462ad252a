// `opsdeck-cli secret set|delete|check` against the real gnome-keyring of
// the test session: the value goes in on stdin and never comes out.
#include "testsupport.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <gtest/gtest.h>
#include <memory>
#include <vector>

using namespace Qt::StringLiterals;

namespace {

struct CliRun
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

CliRun cli(const QStringList &args, const QByteArray &stdinBytes = {},
           const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess process;
    process.setProcessEnvironment(env);
    process.start(opsdeck::test::binPath(u"opsdeck-cli"_s), QStringList{u"secret"_s} + args);
    process.write(stdinBytes);
    process.closeWriteChannel();
    EXPECT_TRUE(process.waitForFinished(30000));
    return {process.exitCode(), process.readAllStandardOutput(), process.readAllStandardError()};
}

// No D-Bus session, so no keychain; config and data folders in `dir`.
QProcessEnvironment withoutKeychain(const QTemporaryDir &dir)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(u"DBUS_SESSION_BUS_ADDRESS"_s);
    env.remove(u"DISPLAY"_s);
    env.insert(u"XDG_CONFIG_HOME"_s, dir.filePath(u"config"_s));
    env.insert(u"XDG_DATA_HOME"_s, dir.filePath(u"data"_s));
    return env;
}

} // namespace

TEST(SecretCommand, SetCheckDeleteWithoutEverPrintingTheValue)
{
    const QString key = u"http/cli-%1/api-key"_s.arg(QCoreApplication::applicationPid());
    const QByteArray value = "sk-cli-never-printed-5521";

    const CliRun set = cli({u"set"_s, key}, value + '\n');
    EXPECT_EQ(set.exitCode, 0) << set.err.toStdString();
    EXPECT_EQ(set.out, "stored " + key.toUtf8() + '\n');

    const CliRun check = cli({u"check"_s, u"--json"_s, key});
    EXPECT_EQ(check.exitCode, 0) << check.err.toStdString();
    EXPECT_EQ(check.out, R"({"key":")" + key.toUtf8() + R"(","stored":true})" + '\n');

    const CliRun removed = cli({u"delete"_s, key});
    EXPECT_EQ(removed.exitCode, 0) << removed.err.toStdString();
    const CliRun again = cli({u"delete"_s, key});
    EXPECT_EQ(again.exitCode, 1);
    EXPECT_EQ(again.err, "opsdeck-cli: " + key.toUtf8() + " is not in the secret store\n");
    const CliRun gone = cli({u"check"_s, key});
    EXPECT_EQ(gone.exitCode, 1);
    EXPECT_EQ(gone.out, key.toUtf8() + ": not stored\n");

    // --json gives one JSON document for every action, never plain text.
    const CliRun setJson = cli({u"set"_s, u"--json"_s, key}, value + '\n');
    EXPECT_EQ(setJson.exitCode, 0) << setJson.err.toStdString();
    EXPECT_EQ(setJson.out, R"({"key":")" + key.toUtf8() + R"(","stored":true})" + '\n');
    const CliRun deleteJson = cli({u"delete"_s, u"--json"_s, key});
    EXPECT_EQ(deleteJson.exitCode, 0) << deleteJson.err.toStdString();
    EXPECT_EQ(deleteJson.out, R"({"deleted":true,"key":")" + key.toUtf8() + R"("})" + '\n');

    for (const CliRun &run : {set, check, removed, again, gone, setJson, deleteJson}) {
        EXPECT_FALSE(run.out.contains(value));
        EXPECT_FALSE(run.err.contains(value));
    }
}

// The audit chain's anchor deleted through OpsDeck's own command once let an
// older log put back pass as intact: audit/ names are checked, never changed.
TEST(SecretCommand, TheAuditChainsKeyAndAnchorAreNotSetOrDeletedByHand)
{
    const QString anchor = u"audit/chain-anchor/%1"_s.arg(QCoreApplication::applicationPid());
    for (const QString &action : {u"set"_s, u"delete"_s}) {
        const CliRun refused = cli({action, anchor}, "entries=1\n");
        EXPECT_EQ(refused.exitCode, 2) << action.toStdString();
        EXPECT_TRUE(refused.err.contains("is the audit log's own")) << refused.err.toStdString();
    }
    const CliRun check = cli({u"check"_s, anchor});
    EXPECT_EQ(check.exitCode, 1) << "never stored: " << check.out.toStdString();
}

TEST(SecretCommand, BadInputExitsTwo)
{
    EXPECT_EQ(cli({u"check"_s, u"http/with space/api-key"_s}).exitCode, 2);
    EXPECT_EQ(cli({u"frob"_s, u"http/x/api-key"_s}).exitCode, 2);
    EXPECT_EQ(cli({u"check"_s}).exitCode, 2);
    const CliRun empty = cli({u"set"_s, u"http/x/api-key"_s}, {});
    EXPECT_EQ(empty.exitCode, 2);
    EXPECT_EQ(empty.err, "opsdeck-cli: no value on stdin for http/x/api-key\n");
}

// Without a D-Bus session there is no keychain: refused (exit 3) unless the
// settings file opts in to the plaintext file, which is then 0600 and warned about.
TEST(SecretCommand, NoKeychainFallsBackToA0600FileOnlyWhenSwitchedOn)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QProcessEnvironment env = withoutKeychain(dir);
    const QString file = dir.filePath(u"data/opsdeck/secrets.json"_s);
    const QByteArray value = "sk-fallback-7731";

    const CliRun refused = cli({u"set"_s, u"http/fb/api-key"_s}, value, env);
    EXPECT_EQ(refused.exitCode, 3) << refused.err.toStdString();
    EXPECT_TRUE(refused.err.startsWith("opsdeck-cli: the keychain could not write http/fb/api-key"))
        << refused.err.toStdString();
    EXPECT_FALSE(QFile::exists(file));

    ASSERT_TRUE(QDir().mkpath(dir.filePath(u"config/opsdeck"_s)));
    QFile settings(dir.filePath(u"config/opsdeck/opsdeck.conf"_s));
    ASSERT_TRUE(settings.open(QIODevice::WriteOnly));
    settings.write("[secrets]\nplaintext_fallback=true\n");
    settings.close();

    const CliRun stored = cli({u"set"_s, u"http/fb/api-key"_s}, value, env);
    EXPECT_EQ(stored.exitCode, 0) << stored.err.toStdString();
    EXPECT_TRUE(stored.err.contains("using the plaintext file")) << stored.err.toStdString();
    EXPECT_EQ(QFile::permissions(file),
              QFile::ReadOwner | QFile::WriteOwner | QFile::ReadUser | QFile::WriteUser);
    const CliRun check = cli({u"check"_s, u"http/fb/api-key"_s}, {}, env);
    EXPECT_EQ(check.exitCode, 0) << check.err.toStdString();
    for (const CliRun &run : {refused, stored, check}) {
        EXPECT_FALSE(run.out.contains(value));
        EXPECT_FALSE(run.err.contains(value));
    }
}

// Changes to the plaintext file from several processes at once each read the
// map, change it and write it back: every one of them lands, none written
// over by another's older map.
TEST(SecretCommand, ChangesToThePlaintextFileAtOnceAllLand)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QProcessEnvironment env = withoutKeychain(dir);
    ASSERT_TRUE(QDir().mkpath(dir.filePath(u"config/opsdeck"_s)));
    ASSERT_TRUE(opsdeck::test::writeFile(dir.filePath(u"config/opsdeck/opsdeck.conf"_s),
                                         "[secrets]\nplaintext_fallback=true\n"));
    const QString value = dir.filePath(u"value"_s);
    ASSERT_TRUE(opsdeck::test::writeFile(value, "sk-at-once"));
    constexpr int kWriters = 12;
    constexpr int kRounds = 3;
    for (int round = 0; round < kRounds; ++round) {
        std::vector<std::unique_ptr<QProcess>> writers;
        for (int i = 0; i < kWriters; ++i) {
            auto &process = writers.emplace_back(std::make_unique<QProcess>());
            process->setProcessEnvironment(env);
            // From a file: all of them read their value at once, not as this
            // process gets round to writing each one's stdin.
            process->setStandardInputFile(value);
            process->start(opsdeck::test::binPath(u"opsdeck-cli"_s),
                           {u"secret"_s, u"set"_s, u"http/s%1-%2/api-key"_s.arg(round).arg(i)});
        }
        for (auto &process : writers) {
            ASSERT_TRUE(process->waitForFinished(30000));
            EXPECT_EQ(process->exitCode(), 0) << process->readAllStandardError().toStdString();
        }
    }
    for (int round = 0; round < kRounds; ++round)
        for (int i = 0; i < kWriters; ++i) {
            const CliRun check =
                cli({u"check"_s, u"http/s%1-%2/api-key"_s.arg(round).arg(i)}, {}, env);
            EXPECT_EQ(check.exitCode, 0)
                << "http/s" << round << '-' << i << ": " << check.out.toStdString();
        }
}
