// `opsdeck-cli knobs ...` as a user runs it: the JSON keys of the contract, an
// edit's backup, audit entries and history marker, and the guards of an
// inventory's hosts (armed, --confirm for production) shown by refusing.
#include "clitest.h"
#include "historystore.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <gtest/gtest.h>
#include <sys/stat.h>

using opsdeck::test::runCli;
using namespace opsdeck;

namespace {

const QByteArray decodeScript = "#!/usr/bin/env bash\n"
                                "export SGLANG_SM120_MMA_TARGET_CTAS=512\n"
                                "exec python3 -m sglang.launch_server --port 30002 \\\n"
                                "  --max-running-requests 64\n";

QStringList backupsIn(const QTemporaryDir &dir)
{
    return QDir(dir.path()).entryList({u"serve_decode.sh.opsdeck-*.bak"_qs}, QDir::Files);
}

} // namespace

TEST(CliKnobs, ReadGivesTheKeysOfTheContractAndTheCrlfWarning)
{
    const auto run = runCli({u"knobs"_qs, u"read"_qs,
                             test::dataPath(u"knobs/B14_crlf_serve_script.sh"_qs), u"--json"_qs});
    EXPECT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    const QJsonObject out = run.json().object();
    const QJsonArray knobs = out.value(u"knobs"_qs).toArray();
    ASSERT_FALSE(knobs.isEmpty()) << run.standardOutput.toStdString();
    const QJsonObject port = knobs.at(0).toObject();
    for (const char *key : {"name", "value", "line", "kind", "quoted", "references"})
        EXPECT_TRUE(port.contains(QLatin1String(key))) << key;
    EXPECT_EQ(port.value(u"name"_qs).toString(), u"SGLANG_PORT"_qs);
    EXPECT_EQ(port.value(u"value"_qs).toString(), u"30000"_qs);
    EXPECT_EQ(port.value(u"line"_qs).toInt(), 2);
    EXPECT_EQ(port.value(u"kind"_qs).toString(), u"export"_qs);
    bool crlf = false;
    for (const QJsonValue &warning : out.value(u"warnings"_qs).toArray()) {
        EXPECT_TRUE(warning.toObject().contains(u"line"_qs));
        crlf = crlf || warning.toObject().value(u"reason"_qs).toString().contains(u"30000\\r"_qs);
    }
    EXPECT_TRUE(crlf) << run.standardOutput.toStdString();
}

TEST(CliKnobs, SetBacksUpAuditsMarksAndDiffsKnobByKnob)
{
    QTemporaryDir dir;
    const QString script = dir.filePath(u"serve_decode.sh"_qs);
    ASSERT_TRUE(test::writeFile(script, decodeScript));
    const QString data = dir.filePath(u"data"_qs);
    const auto run = runCli({u"knobs"_qs, u"set"_qs, script, u"--json"_qs, u"--data-dir"_qs, data,
                             u"--"_qs, u"--max-running-requests"_qs, u"96"_qs});
    ASSERT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    const QJsonObject out = run.json().object();
    EXPECT_TRUE(out.value(u"applied"_qs).toBool());
    EXPECT_TRUE(out.value(u"diff"_qs).toString().contains(u"+  --max-running-requests 96\n"_qs));
    ASSERT_EQ(backupsIn(dir).size(), 1);
    EXPECT_EQ(out.value(u"backup"_qs).toString(), dir.filePath(backupsIn(dir).first()));
    EXPECT_TRUE(test::readFile(script).contains("--max-running-requests 96\n"));

    const auto audit = runCli({u"audit"_qs, u"--json"_qs, u"--data-dir"_qs, data});
    const QJsonArray entries = audit.json().array();
    ASSERT_EQ(entries.size(), 2) << audit.standardOutput.toStdString();
    EXPECT_EQ(entries.at(0).toObject().value(u"kind"_qs).toString(), u"knob"_qs);
    EXPECT_EQ(entries.at(0).toObject().value(u"action"_qs).toString(), u"edit"_qs);
    EXPECT_TRUE(entries.at(0)
                    .toObject()
                    .value(u"detail"_qs)
                    .toString()
                    .contains(out.value(u"backup_sha256"_qs).toString()));
    EXPECT_EQ(entries.at(1).toObject().value(u"action"_qs).toString(), u"edited"_qs);

    EXPECT_EQ(QFile::permissions(history::HistoryStore::pathIn(data)) &
                  (QFile::ReadGroup | QFile::ReadOther | QFile::WriteGroup | QFile::WriteOther),
              0)
        << "the marker's database is the user's alone";
    history::HistoryStore store(history::HistoryStore::pathIn(data));
    ASSERT_TRUE(store.open());
    const QVector<history::Marker> markers = store.markers(0, QDateTime::currentMSecsSinceEpoch());
    ASSERT_EQ(markers.size(), 1);
    EXPECT_EQ(markers.first().kind, u"knob"_qs);
    EXPECT_TRUE(markers.first().text.contains(u"set --max-running-requests=96"_qs))
        << markers.first().text.toStdString();

    const auto diff =
        runCli({u"knobs"_qs, u"diff"_qs, out.value(u"backup"_qs).toString(), script, u"--json"_qs});
    EXPECT_EQ(diff.exitCode, 1) << "they differ";
    const QJsonArray changes = diff.json().object().value(u"changes"_qs).toArray();
    ASSERT_EQ(changes.size(), 1);
    const QJsonObject change = changes.at(0).toObject();
    EXPECT_EQ(change.value(u"name"_qs).toString(), u"--max-running-requests"_qs);
    EXPECT_EQ(change.value(u"kind"_qs).toString(), u"flag"_qs);
    EXPECT_EQ(change.value(u"before"_qs).toString(), u"64"_qs);
    EXPECT_EQ(change.value(u"after"_qs).toString(), u"96"_qs);
    EXPECT_EQ(change.value(u"change"_qs).toString(), u"changed"_qs);
}

// An inventory's host is changed only when armed, and a production service
// only with its name confirmed; each refusal changes nothing.
TEST(CliKnobs, TheInventorysGuardsRefuseBeforeAnythingIsTouched)
{
    QTemporaryDir dir;
    const QString script = dir.filePath(u"serve_decode.sh"_qs);
    ASSERT_TRUE(test::writeFile(script, decodeScript));
    const QString data = dir.filePath(u"data"_qs);
    auto inventory = [&](bool armed) {
        return test::writeInventory(
            dir, u"armed: %1\nhosts:\n  - name: gpu-1\n    kind: local\nservices:\n"
                 "  - name: decode\n    role: decode\n    host: gpu-1\n"
                 "    url: http://127.0.0.1:30002\n    serve_script: %2\n"
                 "    tags: [production]\n"_qs.arg(armed ? u"true"_qs : u"false"_qs, script));
    };
    const QStringList set{u"knobs"_qs, u"set"_qs,        script, u"SGLANG_SM120_MMA_TARGET_CTAS"_qs,
                          u"256"_qs,   u"--data-dir"_qs, data,   u"--inventory"_qs};

    auto run = runCli(set + QStringList{inventory(false)});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_TRUE(run.standardError.contains("is not armed")) << run.standardError.toStdString();
    run = runCli(set + QStringList{inventory(false), u"--dry-run"_qs});
    EXPECT_EQ(run.exitCode, 0) << "a preview is read-only: allowed";
    run = runCli(set + QStringList{inventory(true)});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_TRUE(run.standardError.contains("tagged production: repeat its name with --confirm "
                                           "decode"))
        << run.standardError.toStdString();
    run = runCli(set + QStringList{inventory(true), u"--confirm"_qs, u"prefill"_qs});
    EXPECT_EQ(run.exitCode, 2);
    // Another spelling of the same script is the same production service.
    const QStringList spellings{dir.path() + u"//serve_decode.sh"_qs,
                                dir.path() + u"/./serve_decode.sh"_qs,
                                dir.path() + u"/data/../serve_decode.sh"_qs};
    for (const QString &spelling : spellings) {
        run = runCli({u"knobs"_qs, u"set"_qs, spelling, u"SGLANG_SM120_MMA_TARGET_CTAS"_qs,
                      u"256"_qs, u"--data-dir"_qs, data, u"--inventory"_qs, inventory(true),
                      u"--host"_qs, u"gpu-1"_qs});
        EXPECT_EQ(run.exitCode, 2) << spelling.toStdString();
        EXPECT_TRUE(run.standardError.contains("tagged production")) << spelling.toStdString();
    }
    EXPECT_EQ(test::readFile(script), decodeScript);
    EXPECT_TRUE(backupsIn(dir).isEmpty());
    EXPECT_FALSE(QFile::exists(data + u"/audit.jsonl"_qs));

    run = runCli(set + QStringList{inventory(true), u"--confirm"_qs, u"decode"_qs});
    EXPECT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    EXPECT_TRUE(test::readFile(script).contains("CTAS=256\n"));
}

// The audit log made a folder: the entry cannot be written, so the edit does not run.
TEST(CliKnobs, AnEditWhoseAuditEntryCannotBeWrittenDoesNotRun)
{
    QTemporaryDir dir;
    const QString script = dir.filePath(u"serve_decode.sh"_qs);
    ASSERT_TRUE(test::writeFile(script, decodeScript));
    const QString data = dir.filePath(u"data"_qs);
    ASSERT_TRUE(QDir().mkpath(data + u"/audit.jsonl"_qs));
    const auto run = runCli({u"knobs"_qs, u"unset"_qs, script, u"SGLANG_SM120_MMA_TARGET_CTAS"_qs,
                             u"--data-dir"_qs, data});
    EXPECT_EQ(run.exitCode, 1);
    EXPECT_TRUE(run.standardError.contains("audit entry could not be written") &&
                run.standardError.contains("nothing changed"))
        << run.standardError.toStdString();
    EXPECT_EQ(test::readFile(script), decodeScript);
}

// The edit ran, and its "edited" entry met a full disk (strace makes the
// second write to audit.jsonl fail with ENOSPC): said, and exit 1, never 0.
TEST(CliKnobs, AnEditWhoseEditedEntryCannotBeWrittenExitsOne)
{
    QTemporaryDir dir;
    const QString script = dir.filePath(u"serve_decode.sh"_qs);
    ASSERT_TRUE(test::writeFile(script, decodeScript));
    const QString data = dir.filePath(u"data"_qs);
    ASSERT_TRUE(QDir().mkpath(data));
    QProcess cli;
    cli.setStandardInputFile(QProcess::nullDevice());
    cli.start(u"strace"_qs,
              {u"-f"_qs, u"-qq"_qs, u"-o"_qs, u"/dev/null"_qs, u"-P"_qs, data + u"/audit.jsonl"_qs,
               u"-e"_qs, u"inject=write:error=ENOSPC:when=2"_qs, test::binPath(u"opsdeck-cli"_qs),
               u"knobs"_qs, u"unset"_qs, script, u"SGLANG_SM120_MMA_TARGET_CTAS"_qs,
               u"--data-dir"_qs, data});
    ASSERT_TRUE(cli.waitForFinished(60000));
    const QByteArray said = cli.readAllStandardError();
    EXPECT_EQ(cli.exitCode(), 1) << said.toStdString();
    EXPECT_TRUE(said.contains("\"edited\" audit entry could not be written")) << said.toStdString();
    EXPECT_NE(test::readFile(script), decodeScript) << "the edit itself ran";
    const auto verify = runCli({u"audit"_qs, u"--verify"_qs, u"--data-dir"_qs, data});
    EXPECT_EQ(verify.exitCode, 0) << verify.standardOutput.toStdString();
}

TEST(CliKnobs, AHandMadeBackupIsListedAndRestored)
{
    QTemporaryDir dir;
    const QString script = dir.filePath(u"serve_decode.sh"_qs);
    ASSERT_TRUE(test::writeFile(script, decodeScript));
    QByteArray base = decodeScript;
    base.replace("export SGLANG_SM120_MMA_TARGET_CTAS=512\n", "");
    ASSERT_TRUE(test::writeFile(script + u".mmatune_base.bak"_qs, base));
    const QString data = dir.filePath(u"data"_qs);

    auto run = runCli({u"knobs"_qs, u"backups"_qs, script, u"--json"_qs});
    ASSERT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    const QJsonArray backups = run.json().object().value(u"backups"_qs).toArray();
    ASSERT_EQ(backups.size(), 1);
    EXPECT_FALSE(backups.at(0).toObject().value(u"by_opsdeck"_qs).toBool());
    const QJsonArray changes = backups.at(0).toObject().value(u"changes"_qs).toArray();
    ASSERT_EQ(changes.size(), 1);
    EXPECT_EQ(changes.at(0).toObject().value(u"change"_qs).toString(), u"added"_qs)
        << "the script now has the knob the backup lacks";

    run = runCli({u"knobs"_qs, u"restore"_qs, script, script + u".mmatune_base.bak"_qs,
                  u"--data-dir"_qs, data});
    ASSERT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    EXPECT_EQ(test::readFile(script), base);
    ASSERT_EQ(backupsIn(dir).size(), 1);
    EXPECT_EQ(test::readFile(dir.filePath(backupsIn(dir).first())), decodeScript);
}

// Files with set modification times: exactly those after --since are listed,
// newest first; a serve script's knobs are compared with its backup from then.
TEST(CliKnobs, ChangedSinceListsExactlyTheFilesTouchedAfterTheTime)
{
    QTemporaryDir dir;
    const QString scripts = dir.filePath(u"scripts"_qs);
    ASSERT_TRUE(QDir().mkpath(scripts + u"/sub"_qs));
    const QString script = scripts + u"/serve_decode.sh"_qs;
    QByteArray before = decodeScript;
    before.replace("export SGLANG_SM120_MMA_TARGET_CTAS=512\n", "");
    ASSERT_TRUE(test::writeFile(script + u".mmatune_base.bak"_qs, before));
    ASSERT_TRUE(test::writeFile(script, decodeScript));
    ASSERT_TRUE(test::writeFile(scripts + u"/old.conf"_qs, "old\n"));
    ASSERT_TRUE(test::writeFile(scripts + u"/sub/new.conf"_qs, "new\n"));
    auto touch = [](const QString &path, const QString &when) {
        return QProcess::execute(u"touch"_qs, {u"-d"_qs, when, path}) == 0;
    };
    ASSERT_TRUE(touch(script + u".mmatune_base.bak"_qs, u"2026-01-01 11:58"_qs));
    ASSERT_TRUE(touch(scripts + u"/old.conf"_qs, u"2026-01-01 11:59"_qs));
    ASSERT_TRUE(touch(script, u"2026-01-01 14:02"_qs));
    ASSERT_TRUE(touch(scripts + u"/sub/new.conf"_qs, u"2026-01-01 13:00"_qs));
    const QString inventory = test::writeInventory(
        dir, u"hosts:\n  - name: gpu-1\n    kind: local\nservices:\n"
             "  - name: decode\n    role: decode\n    host: gpu-1\n"
             "    url: http://127.0.0.1:30002\n    serve_script: %1\n"_qs.arg(script));
    const auto run = runCli({u"changed-since"_qs, u"--inventory"_qs, inventory, u"--host"_qs,
                             u"gpu-1"_qs, u"--since"_qs, u"2026-01-01T12:00"_qs, u"--json"_qs,
                             u"--data-dir"_qs, dir.filePath(u"data"_qs)});
    ASSERT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    const QJsonObject out = run.json().object();
    QStringList listed;
    for (const QJsonValue &file : out.value(u"files"_qs).toArray())
        listed.append(file.toObject().value(u"path"_qs).toString());
    EXPECT_EQ(listed, (QStringList{script, scripts + u"/sub/new.conf"_qs}));
    const QJsonObject first = out.value(u"files"_qs).toArray().at(0).toObject();
    EXPECT_EQ(first.value(u"then"_qs).toString(), script + u".mmatune_base.bak"_qs);
    EXPECT_EQ(first.value(u"changes"_qs).toArray().size(), 1);
    EXPECT_EQ(out.value(u"total"_qs).toInt(), 2);
    EXPECT_EQ(out.value(u"watched"_qs).toArray().at(0).toString(), scripts);
    const QJsonArray services = out.value(u"services"_qs).toArray();
    ASSERT_EQ(services.size(), 1);
    EXPECT_EQ(services.at(0).toObject().value(u"then"_qs).toString(),
              script + u".mmatune_base.bak"_qs);
    const QJsonArray changes = services.at(0).toObject().value(u"changes"_qs).toArray();
    ASSERT_EQ(changes.size(), 1);
    EXPECT_EQ(changes.at(0).toObject().value(u"name"_qs).toString(),
              u"SGLANG_SM120_MMA_TARGET_CTAS"_qs);
    EXPECT_EQ(changes.at(0).toObject().value(u"change"_qs).toString(), u"added"_qs);

    // Inside a git work tree: HEAD and the dirty files are said too.
    const auto git = [&](const QStringList &args) {
        return QProcess::execute(u"git"_qs, QStringList{u"-C"_qs, scripts} + args) == 0;
    };
    ASSERT_TRUE(git({u"init"_qs, u"-q"_qs}));
    ASSERT_TRUE(git({u"-c"_qs, u"user.email=t@example.invalid"_qs, u"-c"_qs, u"user.name=t"_qs,
                     u"commit"_qs, u"-q"_qs, u"--allow-empty"_qs, u"-m"_qs, u"start"_qs}));
    const auto inGit = runCli({u"changed-since"_qs, u"--inventory"_qs, inventory, u"--host"_qs,
                               u"gpu-1"_qs, u"--since"_qs, u"2026-01-01T12:00"_qs, u"--json"_qs,
                               u"--data-dir"_qs, dir.filePath(u"data"_qs)});
    ASSERT_EQ(inGit.exitCode, 0) << inGit.standardError.toStdString();
    const QJsonArray gitState = inGit.json().object().value(u"git"_qs).toArray();
    ASSERT_EQ(gitState.size(), 1) << inGit.standardOutput.toStdString();
    EXPECT_EQ(gitState.at(0).toObject().value(u"head"_qs).toString().size(), 40);
    EXPECT_TRUE(gitState.at(0)
                    .toObject()
                    .value(u"dirty"_qs)
                    .toArray()
                    .contains(QJsonValue(u"?? serve_decode.sh"_qs)))
        << inGit.standardOutput.toStdString();

    const auto bad = runCli({u"changed-since"_qs, u"--inventory"_qs, inventory, u"--host"_qs,
                             u"gpu-1"_qs, u"--since"_qs, u"yesterday; rm -rf /"_qs});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_TRUE(bad.standardError.contains("give ISO 8601")) << bad.standardError.toStdString();
}

// A FIFO where the script should be: refused at once, nothing hangs.
TEST(CliKnobs, AFifoInPlaceOfTheScriptIsRefusedAtOnce)
{
    QTemporaryDir dir;
    const QString fifo = dir.filePath(u"serve_decode.sh"_qs);
    ASSERT_EQ(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    const auto run = runCli({u"knobs"_qs, u"read"_qs, fifo}, {}, std::chrono::seconds(20));
    EXPECT_EQ(run.exitCode, 1) << "a hang would be -1";
    EXPECT_TRUE(run.standardError.contains(fifo.toUtf8())) << run.standardError.toStdString();
}
