// `opsdeck-cli workflow ...` on the demo cluster, as an on-call engineer runs
// it: co-restart in the documented order (asserted from the sims' own logs),
// the guards shown by refusing, a decode that fails to start, and a CLI
// killed mid-workflow whose journal `workflow resume` continues.
#include "auditlog.h"
#include "clitest.h"
#include "sshdprocess.h"
#include "testsupport.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <csignal>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

using opsdeck::test::runCli;
using namespace opsdeck;

namespace {

// The time of the first line of `log` at or after `from` that contains
// `text` (the sim's "YYYY-MM-DD HH:MM:SS.mmm LEVEL role: ..." lines).
QDateTime lineTime(const QString &log, const QString &text, const QDateTime &from = {})
{
    QFile file(log);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    while (!file.atEnd()) {
        const QString line = QString::fromUtf8(file.readLine());
        if (!line.contains(text))
            continue;
        const QDateTime at = QDateTime::fromString(line.left(23), u"yyyy-MM-dd HH:mm:ss.zzz"_qs);
        if (at.isValid() && (!from.isValid() || at >= from))
            return at;
    }
    return {};
}

class CliWorkflow : public ::testing::Test
{
protected:
    void TearDown() override
    {
        runCli({u"demo"_qs, u"down"_qs, u"--dir"_qs, demoDir()}, m_home.path(),
               std::chrono::seconds(60));
    }
    // demo up; the inventory's path.
    QString up(const QStringList &extra = {})
    {
        const auto run = runCli(
            QStringList{u"demo"_qs, u"up"_qs, u"--dir"_qs, demoDir(), u"--traffic"_qs, u"0"_qs} +
                extra,
            m_home.path(), std::chrono::seconds(90));
        EXPECT_EQ(run.exitCode, 0) << run.standardError.toStdString();
        return run.lastLine();
    }
    QString demoDir() const { return m_home.path() + u"/demo"_qs; }
    // The url of the demo's service `name` (its role has the same name), as
    // `inventory` gives it; empty when it does not.
    static QString urlOf(const QString &inventory, const QString &name)
    {
        return QRegularExpression(u"name: %1\\n    role: %1\\n    host: local\\n"
                                  u"    url: (http://127\\.0\\.0\\.1:\\d+)"_qs.arg(name))
            .match(QString::fromUtf8(test::readFile(inventory)))
            .captured(1);
    }
    QString dataDir() const { return m_home.path() + u"/data"_qs; }
    QString log(const char *service) const
    {
        return demoDir() + u"/logs/%1.log"_qs.arg(QLatin1String(service));
    }
    // workflow run KIND ... --data-dir, with a short keep-alive idle gap and
    // failure watch.
    test::CliRun workflow(const QStringList &arguments)
    {
        return runCli(QStringList{u"workflow"_qs} + arguments +
                          QStringList{u"--data-dir"_qs, dataDir(), u"--idle-gap"_qs, u"1"_qs,
                                      u"--failure-watch"_qs, u"1"_qs},
                      m_home.path(), std::chrono::seconds(180));
    }
    // lock ACTION ... --data-dir.
    test::CliRun lock(const QStringList &arguments)
    {
        return runCli(QStringList{u"lock"_qs} + arguments +
                          QStringList{u"--data-dir"_qs, dataDir()},
                      m_home.path(), std::chrono::seconds(60));
    }
    // Starts `workflow run co-restart` of the demo in `cli` and waits until
    // its output has `line` (what it said so far in `said`).
    bool coRestartUntil(QProcess &cli, const QString &inventory, const char *line, QByteArray &said,
                        const QString &failureWatch = u"1"_qs)
    {
        test::startCli(cli,
                       {u"workflow"_qs, u"run"_qs, u"co-restart"_qs, u"--inventory"_qs, inventory,
                        u"--cluster"_qs, u"demo"_qs, u"--confirm"_qs, u"demo"_qs, u"--data-dir"_qs,
                        dataDir(), u"--idle-gap"_qs, u"1"_qs, u"--failure-watch"_qs, failureWatch},
                       m_home.path());
        return test::waitUntil(
            [&] {
                said += cli.readAllStandardOutput();
                return said.contains(line);
            },
            std::chrono::seconds(60));
    }
    QVector<history::AuditEntry> audit() const
    {
        return history::AuditLog(history::AuditLog::pathIn(dataDir())).read();
    }
    QTemporaryDir m_home;
};

QStringList actionsOf(const QVector<history::AuditEntry> &entries)
{
    QStringList actions;
    for (const auto &entry : entries)
        if (entry.kind == u"workflow")
            actions << entry.action;
    return actions;
}

} // namespace

TEST_F(CliWorkflow, CoRestartRunsInTheDocumentedOrderAndWaitsForTheOldProcesses)
{
    const QString inventory = up();
    const QDateTime before = QDateTime::currentDateTime().addSecs(-1);
    const auto run =
        workflow({u"run"_qs, u"co-restart"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs,
                  u"demo"_qs, u"--confirm"_qs, u"demo"_qs, u"--json"_qs});
    ASSERT_EQ(run.exitCode, 0) << run.standardOutput.toStdString()
                               << run.standardError.toStdString();
    const QJsonObject out = run.json().object();
    EXPECT_EQ(out.value(u"outcome"_qs).toString(), u"succeeded"_qs);
    EXPECT_EQ(out.value(u"steps"_qs).toArray().size(), 12);
    EXPECT_TRUE(out.value(u"steps"_qs)
                    .toArray()
                    .last()
                    .toObject()
                    .value(u"detail"_qs)
                    .toString()
                    .startsWith(u"no bootstrap or transfer failure in 1 s"_qs))
        << run.standardOutput.toStdString();

    // From the sims' own logs: decode told to stop first, both gone before
    // prefill starts again, prefill up before decode starts.
    const QDateTime decodeTerm = lineTime(log("decode"), u"received SIGTERM"_qs, before);
    const QDateTime prefillTerm = lineTime(log("prefill"), u"received SIGTERM"_qs, before);
    const QDateTime decodeGone = lineTime(log("decode"), u"shutdown complete"_qs, before);
    const QDateTime prefillGone = lineTime(log("prefill"), u"shutdown complete"_qs, before);
    ASSERT_TRUE(decodeTerm.isValid() && prefillTerm.isValid() && decodeGone.isValid() &&
                prefillGone.isValid());
    EXPECT_LE(decodeTerm, prefillTerm);
    // --exit-delay 1: each old process took its second to exit, and was waited for.
    EXPECT_GE(decodeTerm.msecsTo(decodeGone), 900);
    const QDateTime prefillUp = lineTime(log("prefill"), u"fired up"_qs, prefillGone);
    const QDateTime prefillStart = lineTime(log("prefill"), u"listening on"_qs, prefillGone);
    const QDateTime decodeStart = lineTime(log("decode"), u"listening on"_qs, decodeGone);
    ASSERT_TRUE(prefillUp.isValid() && prefillStart.isValid() && decodeStart.isValid());
    EXPECT_GE(prefillStart, decodeGone);
    EXPECT_GE(decodeStart, prefillUp) << "decode started before prefill was healthy";

    // Every step audited before and after, and the chain intact.
    const QStringList actions = actionsOf(audit());
    // Taking the cluster lock is audited before the host is touched.
    ASSERT_GE(actions.size(), 2);
    EXPECT_EQ(actions.first(), u"lock-take"_qs);
    EXPECT_EQ(actions.at(1), u"run"_qs);
    EXPECT_EQ(actions.count(u"step-start"_qs), 12);
    EXPECT_EQ(actions.count(u"step-done"_qs), 12);
    EXPECT_EQ(actions.last(), u"succeeded"_qs);
    const auto verify = runCli({u"audit"_qs, u"--verify"_qs, u"--data-dir"_qs, dataDir()});
    EXPECT_EQ(verify.exitCode, 0) << verify.standardOutput.toStdString();
    // The copy for teammates on the cluster's host, next to the serve
    // scripts: the same entries, in order, one JSON object per line.
    QFile copy(demoDir() + u"/opsdeck-audit.log"_qs);
    ASSERT_TRUE(copy.open(QIODevice::ReadOnly)) << copy.fileName().toStdString();
    QStringList copied;
    for (const QByteArray &line : copy.readAll().split('\n')) {
        if (line.isEmpty())
            continue;
        const QJsonObject entry = QJsonDocument::fromJson(line).object();
        EXPECT_EQ(entry.value(u"workflow"_qs).toString(), out.value(u"id"_qs).toString());
        EXPECT_FALSE(entry.value(u"from"_qs).toString().isEmpty());
        copied << entry.value(u"action"_qs).toString();
    }
    EXPECT_EQ(copied, actions.mid(1)) << "copied from the run on, once the lock is held";
    EXPECT_EQ(QFileInfo(copy).permissions() & QFileDevice::ReadOther, QFileDevice::ReadOther)
        << "teammates read it";

    const auto listed = workflow({u"list"_qs, u"--json"_qs});
    ASSERT_EQ(listed.json().array().size(), 1);
    EXPECT_EQ(listed.json().array().first().toObject().value(u"outcome"_qs).toString(),
              u"succeeded"_qs);
}

TEST_F(CliWorkflow, ReadOnlyAWrongConfirmationAndOneSideOfNixlAreRefusedAndRunNothing)
{
    const QString inventory = up({u"--transfer-backend"_qs, u"nixl"_qs});
    const qint64 decodePid = [&] {
        QFile pid(demoDir() + u"/run/decode.pid"_qs);
        return pid.open(QIODevice::ReadOnly) ? pid.readAll().trimmed().toLongLong() : 0;
    }();
    ASSERT_GT(decodePid, 0);

    auto run = workflow({u"run"_qs, u"co-restart"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs,
                         u"demo"_qs, u"--confirm"_qs, u"demo "_qs});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_TRUE(run.standardError.contains(
        "refused: the confirmation does not match: type \"demo\" to confirm, \"demo \" was typed"))
        << run.standardError.toStdString();

    run = workflow({u"run"_qs, u"restart"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs,
                    u"demo"_qs, u"--service"_qs, u"decode"_qs, u"--confirm"_qs, u"decode"_qs});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_TRUE(run.standardError.contains("transfers KV with nixl"))
        << run.standardError.toStdString();
    EXPECT_TRUE(run.standardOutput.contains("REFUSED:")) << run.standardOutput.toStdString();

    const QString readOnly = m_home.path() + u"/read-only.yaml"_qs;
    ASSERT_TRUE(test::writeFile(readOnly,
                                test::readFile(inventory).replace("armed: true", "armed: false")));
    run = workflow({u"run"_qs, u"co-restart"_qs, u"--inventory"_qs, readOnly, u"--cluster"_qs,
                    u"demo"_qs, u"--confirm"_qs, u"demo"_qs});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_TRUE(run.standardError.contains("is read-only (armed: false)"))
        << run.standardError.toStdString();

    // A name given twice confirms neither; a knob given to a restart is not ignored.
    run = workflow({u"run"_qs, u"co-restart"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs,
                    u"demo"_qs, u"--confirm"_qs, u"x"_qs, u"--confirm"_qs, u"demo"_qs});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_TRUE(run.standardError.contains("--confirm given 2 times"))
        << run.standardError.toStdString();
    run = workflow({u"plan"_qs, u"restart"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs,
                    u"demo"_qs, u"--service"_qs, u"proxy"_qs, u"--knob"_qs, u"X"_qs});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_TRUE(run.standardError.contains("restart edits no knob"))
        << run.standardError.toStdString();

    // Nothing ran: no journal, no workflow entry, the same decode process.
    EXPECT_TRUE(QDir(dataDir() + u"/workflows"_qs).entryList(QDir::Files).isEmpty());
    EXPECT_TRUE(actionsOf(audit()).isEmpty());
    EXPECT_TRUE(test::processAlive(decodePid));
}

TEST_F(CliWorkflow, ADecodeThatFailsToStartStopsTheWorkflowAndTheAuditIsComplete)
{
    const QString inventory = up();
    // The decode's serve script now exits before its server starts.
    const QString script = demoDir() + u"/serve_decode.sh"_qs;
    ASSERT_TRUE(test::writeFile(
        script,
        test::readFile(script).replace("exec ", "echo 'CUDA out of memory' >&2; exit 1\nexec ")));

    const auto run = workflow({u"run"_qs, u"co-restart"_qs, u"--inventory"_qs, inventory,
                               u"--cluster"_qs, u"demo"_qs, u"--confirm"_qs, u"demo"_qs});
    EXPECT_EQ(run.exitCode, 1) << run.standardOutput.toStdString();
    EXPECT_TRUE(run.standardOutput.contains("9. FAILED")) << run.standardOutput.toStdString();
    EXPECT_TRUE(run.standardOutput.contains("decode is not running any more"))
        << run.standardOutput.toStdString();
    EXPECT_TRUE(run.standardOutput.contains("workflow resume --id"));
    // Steps 10 and 11 never started.
    EXPECT_FALSE(run.standardOutput.contains("10. wait until router is ready with every worker "
                                             "healthy ...\n"));
    const QStringList actions = actionsOf(audit());
    EXPECT_EQ(actions.count(u"step-start"_qs), 9);
    EXPECT_EQ(actions.count(u"step-failed"_qs), 1);
    EXPECT_EQ(actions.last(), u"failed"_qs);
    const auto listed = workflow({u"list"_qs, u"--json"_qs});
    const QJsonObject entry = listed.json().array().first().toObject();
    EXPECT_EQ(entry.value(u"outcome"_qs).toString(), u"failed"_qs);
    EXPECT_TRUE(entry.value(u"detail"_qs).toString().contains(u"step 9."))
        << entry.value(u"detail"_qs).toString().toStdString();
    // An inventory edited since, in what the steps' commands do not show (the
    // serve script the stop checks a pid against): no resume of the old plan.
    const QByteArray planned = test::readFile(inventory);
    const QByteArray from = "serve_script: " + QFile::encodeName(script);
    const QByteArray to = "serve_script: " + QFile::encodeName(demoDir()) + "/serve_prefill.sh";
    ASSERT_TRUE(planned.contains(from));
    ASSERT_TRUE(test::writeFile(inventory, QByteArray(planned).replace(from, to)));
    const auto edited =
        workflow({u"resume"_qs, u"--inventory"_qs, inventory, u"--confirm"_qs, u"demo"_qs});
    EXPECT_EQ(edited.exitCode, 2) << edited.standardOutput.toStdString();
    EXPECT_TRUE(edited.standardError.contains("no longer gives the plan"))
        << edited.standardError.toStdString();
    ASSERT_TRUE(test::writeFile(inventory, planned));
    // Nor is a journal that does not say what its targets were.
    const QString journalPath =
        dataDir() + u"/workflows/"_qs + entry.value(u"id"_qs).toString() + u".journal"_qs;
    QByteArrayList lines = test::readFile(journalPath).split('\n');
    QJsonObject first = QJsonDocument::fromJson(lines.first()).object();
    QJsonObject plan = first.value(u"plan"_qs).toObject();
    ASSERT_TRUE(plan.contains(u"targets"_qs));
    plan.remove(u"targets"_qs);
    first.insert(u"plan"_qs, plan);
    lines.first() = QJsonDocument(first).toJson(QJsonDocument::Compact);
    ASSERT_TRUE(test::writeFile(journalPath, lines.join('\n')));
    const auto untargeted =
        workflow({u"resume"_qs, u"--inventory"_qs, inventory, u"--confirm"_qs, u"demo"_qs});
    EXPECT_EQ(untargeted.exitCode, 2) << untargeted.standardOutput.toStdString();
    EXPECT_TRUE(untargeted.standardError.contains("no longer gives the plan"))
        << untargeted.standardError.toStdString();
    // A journal that is not one is named, and makes the listing bad input.
    QFile garbage(dataDir() + u"/workflows/x.journal"_qs);
    ASSERT_TRUE(garbage.open(QIODevice::WriteOnly));
    garbage.write("not json\n");
    garbage.close();
    const auto bad = workflow({u"list"_qs});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_TRUE(bad.standardError.contains("x.journal:1: not a workflow journal line"))
        << bad.standardError.toStdString();
    EXPECT_TRUE(bad.standardOutput.contains("-co-restart-")) << "the readable ones are listed";
}

TEST_F(CliWorkflow, ACliKilledMidWorkflowLeavesAJournalThatResumeContinues)
{
    const QString inventory = up();
    // Killed while both engines are down: after step 5 (prefill exited) began.
    // Run without a failure watch: its resume (given --failure-watch 1 by
    // workflow()) plans it again as it ran, without one.
    QProcess cli;
    QByteArray said;
    ASSERT_TRUE(coRestartUntil(cli, inventory, "\n5. wait until prefill has exited on local ...\n",
                               said, u"0"_qs))
        << said.toStdString();
    ::kill(pid_t(cli.processId()), SIGKILL);
    ASSERT_TRUE(cli.waitForFinished(5000));

    auto listed = workflow({u"list"_qs, u"--json"_qs});
    QJsonObject entry = listed.json().array().first().toObject();
    EXPECT_FALSE(entry.value(u"finished"_qs).toBool());
    const int from = entry.value(u"resume_from"_qs).toInt();
    EXPECT_GE(from, 4); // steps 4 and 5 run at once: the lowest unended one
    EXPECT_LE(from, 6);
    const auto text = workflow({u"list"_qs});
    EXPECT_TRUE(text.standardOutput.contains("UNFINISHED: stopped at step"))
        << text.standardOutput.toStdString();

    // The killed run's lock stays, naming it; its resume takes it as its own.
    const auto held = lock(
        {u"status"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs, u"demo"_qs, u"--json"_qs});
    EXPECT_EQ(held.exitCode, 1) << held.standardOutput.toStdString();
    EXPECT_EQ(held.json().object().value(u"workflow"_qs).toString(),
              entry.value(u"id"_qs).toString());
    // Guarded as a new run: the typed name first.
    EXPECT_EQ(workflow({u"resume"_qs, u"--inventory"_qs, inventory}).exitCode, 2);
    const auto resumed =
        workflow({u"resume"_qs, u"--inventory"_qs, inventory, u"--confirm"_qs, u"demo"_qs});
    ASSERT_EQ(resumed.exitCode, 0)
        << resumed.standardOutput.toStdString() << resumed.standardError.toStdString();
    EXPECT_TRUE(resumed.standardOutput.contains("succeeded"))
        << resumed.standardOutput.toStdString();
    listed = workflow({u"list"_qs, u"--json"_qs});
    entry = listed.json().array().first().toObject();
    EXPECT_TRUE(entry.value(u"finished"_qs).toBool());
    EXPECT_EQ(entry.value(u"outcome"_qs).toString(), u"succeeded"_qs);
    const auto status = runCli({u"status"_qs, u"--inventory"_qs, inventory});
    EXPECT_EQ(status.exitCode, 0) << status.standardOutput.toStdString();
    EXPECT_TRUE(actionsOf(audit()).contains(u"resume-chosen"_qs));
    EXPECT_EQ(
        lock({u"status"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs, u"demo"_qs}).exitCode, 0)
        << "released at the end of the resumed run";
    // Nothing left to resume.
    const auto again =
        workflow({u"resume"_qs, u"--inventory"_qs, inventory, u"--confirm"_qs, u"demo"_qs});
    EXPECT_EQ(again.exitCode, 2);
}

// The incident replayed: the proxy stalls reused connections (a flag in its
// own serve script). Once diagnosed, reverting the decode's knob is refused
// without an explicit acknowledgement; restart-proxy says the stall
// persists; reverting the flag on the proxy (no evidence warning: it is the
// implicated hop) clears it, verified by the keep-alive stage; restoring it
// leaves the script byte for byte as it was.
TEST_F(CliWorkflow, TheIncidentsRightFixEndToEnd)
{
    const QString inventory = up({u"--fault"_qs, u"proxy-reused-stall=5"_qs});
    const QString proxyScript = demoDir() + u"/serve_proxy.sh"_qs;
    const QString decodeScript = demoDir() + u"/serve_decode.sh"_qs;
    const auto bytesOf = &test::readFile;
    const QByteArray proxyBefore = bytesOf(proxyScript);
    const QByteArray decodeBefore = bytesOf(decodeScript);
    const QStringList target{u"--inventory"_qs, inventory, u"--cluster"_qs, u"demo"_qs};

    const auto diagnose =
        runCli({u"diagnose"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs, u"demo"_qs,
                u"--idle-gap"_qs, u"1"_qs, u"--data-dir"_qs, dataDir()},
               m_home.path(), std::chrono::seconds(120));
    ASSERT_EQ(diagnose.exitCode, 1) << diagnose.standardOutput.toStdString();

    const QStringList engineKnob{u"--knob"_qs, u"SGLANG_SM120_MMA_TARGET_CTAS"_qs};
    const auto plan = workflow(QStringList{u"plan"_qs, u"revert-knob"_qs} + target + engineKnob +
                               QStringList{u"--json"_qs});
    ASSERT_EQ(plan.exitCode, 0) << plan.standardError.toStdString();
    const QJsonObject planned = plan.json().object();
    EXPECT_TRUE(
        planned.value(u"warnings"_qs)
            .toArray()
            .first()
            .toString()
            .startsWith(
                u"The evidence points at proxy: reused connections stall there while fresh ones answer"_qs))
        << plan.standardOutput.toStdString();
    EXPECT_TRUE(planned.value(u"needs_evidence_acknowledgement"_qs).toBool());
    EXPECT_EQ(
        planned.value(u"evidence"_qs).toObject().value(u"stall"_qs).toObject().value(u"hop"_qs),
        u"proxy"_qs);
    const auto refused = workflow(QStringList{u"run"_qs, u"revert-knob"_qs} + target + engineKnob +
                                  QStringList{u"--confirm"_qs, u"demo"_qs});
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_TRUE(refused.standardError.contains("--despite-evidence"))
        << refused.standardError.toStdString();
    EXPECT_TRUE(refused.standardError.contains("workflow plan restart-proxy"));
    EXPECT_EQ(bytesOf(decodeScript), decodeBefore) << "the refused revert changed the script";

    const auto proxyRestart = workflow(QStringList{u"run"_qs, u"restart-proxy"_qs} + target +
                                       QStringList{u"--confirm"_qs, u"demo"_qs});
    EXPECT_EQ(proxyRestart.exitCode, 1);
    EXPECT_TRUE(proxyRestart.standardOutput.contains("The stall persists after the restart"))
        << proxyRestart.standardOutput.toStdString();

    const QStringList proxyFlag{u"--knob=--fault"_qs};
    const auto fixPlan = workflow(QStringList{u"plan"_qs, u"revert-knob"_qs} + target + proxyFlag +
                                  QStringList{u"--json"_qs});
    EXPECT_FALSE(fixPlan.json().object().value(u"needs_evidence_acknowledgement"_qs).toBool());
    const auto fix = workflow(QStringList{u"run"_qs, u"revert-knob"_qs} + target + proxyFlag +
                              QStringList{u"--confirm"_qs, u"demo"_qs});
    ASSERT_EQ(fix.exitCode, 0) << fix.standardOutput.toStdString()
                               << fix.standardError.toStdString();
    EXPECT_TRUE(fix.standardOutput.contains("keep-alive passed"))
        << fix.standardOutput.toStdString();
    EXPECT_NE(bytesOf(proxyScript), proxyBefore);
    EXPECT_EQ(bytesOf(decodeScript), decodeBefore);
    // The fix's verification is in history: its passing keep-alive stage
    // clears the stall, and an engine revert no longer needs the warning.
    const auto after = workflow(QStringList{u"plan"_qs, u"revert-knob"_qs} + target + engineKnob +
                                QStringList{u"--json"_qs});
    ASSERT_EQ(after.exitCode, 0) << after.standardError.toStdString();
    const QJsonObject cleared = after.json().object();
    EXPECT_FALSE(cleared.value(u"needs_evidence_acknowledgement"_qs).toBool())
        << after.standardOutput.toStdString();
    const QJsonObject evidence = cleared.value(u"evidence"_qs).toObject();
    EXPECT_TRUE(evidence.value(u"last_verification"_qs).toString().startsWith(u"passed"_qs))
        << after.standardOutput.toStdString();
    EXPECT_EQ(evidence.value(u"stall"_qs).toObject().value(u"cleared_by"_qs).toString(),
              u"a staged verification's keep-alive stage passed"_qs)
        << after.standardOutput.toStdString();

    const auto restore = workflow(QStringList{u"run"_qs, u"restore-knob"_qs} + target + proxyFlag +
                                  QStringList{u"--confirm"_qs, u"demo"_qs});
    EXPECT_EQ(restore.exitCode, 1) << "the stall is back" << restore.standardOutput.toStdString();
    EXPECT_EQ(bytesOf(proxyScript), proxyBefore) << "revert then restore is byte for byte";
    EXPECT_TRUE(restore.standardOutput.contains(
        QByteArray(QByteArray("to roll back ") + proxyScript.toUtf8())))
        << restore.standardOutput.toStdString();

    const auto verify = runCli({u"audit"_qs, u"--verify"_qs, u"--data-dir"_qs, dataDir()});
    EXPECT_EQ(verify.exitCode, 0) << verify.standardOutput.toStdString();
    // audit --json: a workflow's entries name it, and the marker steps their marker.
    const auto listed = runCli({u"audit"_qs, u"--json"_qs, u"--data-dir"_qs, dataDir()});
    int named = 0;
    int withMarker = 0;
    for (const QJsonValue &value : listed.json().array()) {
        const QJsonObject e = value.toObject();
        if (e.value(u"kind"_qs).toString() != u"workflow")
            continue;
        named += e.value(u"workflow"_qs).toString().isEmpty() ? 0 : 1;
        withMarker += e.value(u"marker_id"_qs).isDouble() ? 1 : 0;
    }
    EXPECT_GT(named, 20);
    // The revert's before and after; the restore's before (its verification failed).
    EXPECT_EQ(withMarker, 3);
    const auto since = [&](const QString &time) {
        return runCli(
            {u"audit"_qs, u"--json"_qs, u"--since"_qs, time, u"--data-dir"_qs, dataDir()});
    };
    EXPECT_EQ(since(u"1d"_qs).json().array().size(), listed.json().array().size());
    EXPECT_TRUE(since(u"2099-01-01T00:00"_qs).json().array().isEmpty());
    EXPECT_EQ(since(u"yesterday"_qs).exitCode, 2);

    // Each edit's own entries (kind knob) are in the log beside the steps'.
    QStringList edited;
    for (const auto &entry : audit())
        if (entry.kind == u"knob" && entry.action == u"edited")
            edited << entry.detail.section(u'\n', 0, 0);
    EXPECT_EQ(edited.size(), 2) << edited.join(u'\n').toStdString();
}

// Two consoles on one cluster: the second is refused with the owner and the
// workflow named, and runs nothing; a lock is broken only with the cluster's
// name typed, and that is audited.
TEST_F(CliWorkflow, TwoConsolesContendForTheLockAndOneIsRefusedWithTheOwnerNamed)
{
    const QString inventory = up();
    QProcess first;
    QByteArray said;
    ASSERT_TRUE(coRestartUntil(first, inventory, "\n2. stop decode on local ...\n", said))
        << said.toStdString();
    const auto second =
        workflow({u"run"_qs, u"restart"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs,
                  u"demo"_qs, u"--service"_qs, u"proxy"_qs, u"--confirm"_qs, u"proxy"_qs});
    EXPECT_EQ(second.exitCode, 2);
    EXPECT_TRUE(second.standardError.contains(
        QByteArray(QByteArray("is held by ") + history::AuditLog::currentUser().toUtf8() + " on ")))
        << second.standardError.toStdString();
    EXPECT_TRUE(second.standardError.contains("-co-restart-")) << "names the workflow";
    // The running workflow looks unfinished from outside: neither resumed a
    // second time (its lock names it) nor abandoned while it runs.
    const auto resumed =
        workflow({u"resume"_qs, u"--inventory"_qs, inventory, u"--confirm"_qs, u"demo"_qs});
    EXPECT_EQ(resumed.exitCode, 2) << resumed.standardOutput.toStdString();
    EXPECT_TRUE(resumed.standardError.contains("still running in another process"))
        << resumed.standardError.toStdString();
    const auto abandoned = workflow({u"abandon"_qs, u"--inventory"_qs, inventory});
    EXPECT_EQ(abandoned.exitCode, 2) << abandoned.standardOutput.toStdString();
    EXPECT_TRUE(abandoned.standardError.contains("still running in another process"))
        << abandoned.standardError.toStdString();
    ASSERT_TRUE(first.waitForFinished(120000));
    EXPECT_EQ(first.exitCode(), 0)
        << QByteArray(said + first.readAllStandardOutput()).toStdString();
    const auto listed = workflow({u"list"_qs, u"--json"_qs});
    EXPECT_EQ(listed.json().array().size(), 1) << "the refused one has no journal";
    EXPECT_TRUE(actionsOf(audit()).contains(u"lock-not-taken"_qs));
    EXPECT_FALSE(actionsOf(audit()).contains(u"resume-chosen"_qs));
    EXPECT_FALSE(actionsOf(audit()).contains(u"abandoned"_qs));

    // A lock left behind (here: written by hand, as a crashed console would).
    QFile left(demoDir() + u"/.opsdeck-lock-demo"_qs);
    ASSERT_TRUE(left.open(QIODevice::WriteOnly));
    left.write("owner=bob\nhost=laptop-9\ntime=2026-01-01T00:00:00Z\nexpires=2026-01-01T04:00:00Z\n"
               "workflow=20260101T000000Z-co-restart-beef\n");
    left.close();
    const QStringList target{u"--inventory"_qs, inventory, u"--cluster"_qs, u"demo"_qs};
    const auto status = lock(QStringList{u"status"_qs} + target);
    EXPECT_EQ(status.exitCode, 1);
    EXPECT_TRUE(status.standardOutput.contains("bob on laptop-9"))
        << status.standardOutput.toStdString();
    EXPECT_TRUE(status.standardOutput.contains("STALE")) << status.standardOutput.toStdString();
    const auto wrong =
        lock(QStringList{u"break"_qs} + target + QStringList{u"--confirm"_qs, u"dem"_qs});
    EXPECT_EQ(wrong.exitCode, 2);
    EXPECT_TRUE(left.exists());
    const auto broken =
        lock(QStringList{u"break"_qs} + target + QStringList{u"--confirm"_qs, u"demo"_qs});
    EXPECT_EQ(broken.exitCode, 0) << broken.standardError.toStdString();
    EXPECT_FALSE(left.exists());
    EXPECT_TRUE(actionsOf(audit()).contains(u"lock-broken"_qs));

    // A link to /dev/null at the lock's name (noclobber would write through
    // it, and every run would pass): refused, named, and nothing runs.
    ASSERT_EQ(::symlink("/dev/null", QFile::encodeName(left.fileName()).constData()), 0);
    const auto linked = lock(QStringList{u"status"_qs} + target);
    EXPECT_NE(linked.exitCode, 0);
    EXPECT_TRUE(linked.standardError.contains("a link or not a regular file"))
        << linked.standardError.toStdString();
    const qsizetype runs = actionsOf(audit()).count(u"run"_qs);
    const auto through =
        workflow({u"run"_qs, u"restart"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs,
                  u"demo"_qs, u"--service"_qs, u"proxy"_qs, u"--confirm"_qs, u"proxy"_qs});
    EXPECT_EQ(through.exitCode, 2);
    EXPECT_TRUE(through.standardError.contains("a link or not a regular file"))
        << through.standardError.toStdString();
    EXPECT_EQ(actionsOf(audit()).count(u"run"_qs), runs) << "nothing ran";
    EXPECT_TRUE(QFileInfo(left.fileName()).isSymLink());
}

// Killed just as decode was being started, then resumed: the start runs
// again but never launches a second server over the first one, and the pid
// file names the one that serves (demo down then stops it).
TEST_F(CliWorkflow, AResumedStartNeverLaunchesASecondServer)
{
    const QString inventory = up();
    QProcess cli;
    QByteArray said;
    ASSERT_TRUE(coRestartUntil(cli, inventory, "\n8. ok in", said)) << said.toStdString();
    ::kill(pid_t(cli.processId()), SIGKILL);
    ASSERT_TRUE(cli.waitForFinished(5000));
    // As if step 8 had not ended: the journal loses its last line.
    const QString journal =
        QDir(dataDir() + u"/workflows"_qs).entryInfoList(QDir::Files).first().absoluteFilePath();
    QFile file(journal);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    QByteArrayList lines = file.readAll().split('\n');
    file.close();
    while (!lines.isEmpty() && !lines.last().contains("\"step-end\",\"n\":8") &&
           !lines.last().contains("\"n\":8,"))
        lines.removeLast();
    ASSERT_FALSE(lines.isEmpty());
    lines.removeLast(); // step 8's end
    ASSERT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(lines.join('\n') + '\n');
    file.close();

    const auto resumed =
        workflow({u"resume"_qs, u"--inventory"_qs, inventory, u"--confirm"_qs, u"demo"_qs});
    ASSERT_EQ(resumed.exitCode, 0) << resumed.standardOutput.toStdString();
    EXPECT_TRUE(resumed.standardOutput.contains("already running"))
        << resumed.standardOutput.toStdString();
    // One decode server, the one the pid file names.
    QFile pidFile(demoDir() + u"/run/decode.pid"_qs);
    ASSERT_TRUE(pidFile.open(QIODevice::ReadOnly));
    const qint64 pid = pidFile.readAll().trimmed().toLongLong();
    int decodes = 0;
    for (const QFileInfo &proc : QDir(u"/proc"_qs).entryInfoList(QDir::Dirs)) {
        QFile cmdline(proc.absoluteFilePath() + u"/cmdline"_qs);
        if (cmdline.open(QIODevice::ReadOnly) &&
            cmdline.readAll().contains(QFile::encodeName(demoDir() + u"/serve_decode.sh"_qs)))
            ++decodes;
    }
    EXPECT_LE(decodes, 1) << "a second decode was started";
    EXPECT_TRUE(test::processAlive(pid));
}

// A status that gives no answer (here, once the proxy is down, its last line
// reads as a prompt) does not say the service runs: the start step fails
// saying so, instead of passing as "already running" with nothing started.
TEST_F(CliWorkflow, AStartWhoseStatusGivesNoAnswerFailsInsteadOfPassing)
{
    const QString inventory = up();
    QByteArray text = test::readFile(inventory);
    const QByteArray pidFile = QFile::encodeName(demoDir()) + "/run/proxy.pid";
    const QByteArray pidLine = "    pid_file: " + pidFile + "\n";
    ASSERT_TRUE(text.contains(pidLine));
    const QByteArray status = "    status: 'printf \"proxy pid: \"; kill -0 \"$(cat " + pidFile +
                              " 2>/dev/null)\" 2>/dev/null && echo up'\n";
    text.replace(pidLine, QByteArray(pidLine + status));
    ASSERT_TRUE(test::writeFile(inventory, text));
    const auto run =
        workflow({u"run"_qs, u"restart"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs,
                  u"demo"_qs, u"--service"_qs, u"proxy"_qs, u"--confirm"_qs, u"proxy"_qs});
    EXPECT_EQ(run.exitCode, 1) << run.standardOutput.toStdString();
    EXPECT_TRUE(run.standardOutput.contains("1. ok in")) << run.standardOutput.toStdString();
    EXPECT_TRUE(run.standardOutput.contains("3. FAILED")) << run.standardOutput.toStdString();
    EXPECT_TRUE(run.standardOutput.contains("cannot tell whether proxy runs on host local: its "
                                            "status command gave no answer ("))
        << run.standardOutput.toStdString();
    EXPECT_FALSE(run.standardOutput.contains("already running"))
        << run.standardOutput.toStdString();
    EXPECT_EQ(actionsOf(audit()).count(u"step-failed"_qs), 1);
}

// The started decode never serves (it died at "port already in use", or
// still loads) while another process answers healthy on its port (an old
// server a watchdog brought back): the health wait does not pass on that
// answer, and names who serves the port.
TEST_F(CliWorkflow, AHealthyAnswerFromAProcessTheWorkflowDidNotStartFailsTheWait)
{
    const QString inventory = up();
    const QRegularExpression decodeUrl(
        u"name: decode\n(?:    .*\n)*?    url: http://127.0.0.1:(\\d+)"_qs);
    const QString port = decodeUrl.match(QString::fromUtf8(test::readFile(inventory))).captured(1);
    ASSERT_FALSE(port.isEmpty());
    const QString script = demoDir() + u"/serve_decode.sh"_qs;
    ASSERT_TRUE(
        test::writeFile(script, test::readFile(script).replace("exec ", "exec sleep 120; ")));
    QProcess cli;
    QByteArray said;
    ASSERT_TRUE(coRestartUntil(cli, inventory, "\n8. ok in", said)) << said.toStdString();
    QProcess impostor;
    impostor.start(test::binPath(u"opsdeck-sim"_qs),
                   {u"--role"_qs, u"decode"_qs, u"--port"_qs, port, u"--ready-delay"_qs, u"0"_qs});
    ASSERT_TRUE(impostor.waitForStarted());
    ASSERT_TRUE(cli.waitForFinished(120000));
    said += cli.readAllStandardOutput();
    EXPECT_EQ(cli.exitCode(), 1) << said.toStdString();
    EXPECT_TRUE(said.contains("9. FAILED")) << said.toStdString();
    EXPECT_TRUE(said.contains(QStringLiteral("decode answers on its port, but port %1 is served by "
                                             "pid %2, ")
                                  .arg(port)
                                  .arg(impostor.processId())
                                  .toUtf8()))
        << said.toStdString();
    EXPECT_FALSE(said.contains("succeeded")) << said.toStdString();
    impostor.kill();
    impostor.waitForFinished();
}

// The same knob in the proxy's script and the decode's: a revert of it acts
// on an engine, so the evidence guard speaks although the proxy is edited too.
TEST_F(CliWorkflow, AKnobSharedByTheImplicatedHopAndAnEngineStillNeedsTheAcknowledgement)
{
    const QString inventory = up({u"--fault"_qs, u"proxy-reused-stall=5"_qs});
    for (const char *script : {"/serve_decode.sh", "/serve_proxy.sh"}) {
        const QString path = demoDir() + QLatin1String(script);
        ASSERT_TRUE(test::writeFile(
            path, test::readFile(path).replace("exec ", "export OMP_NUM_THREADS=8\nexec ")));
    }
    const auto diagnose =
        runCli({u"diagnose"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs, u"demo"_qs,
                u"--idle-gap"_qs, u"1"_qs, u"--data-dir"_qs, dataDir()},
               m_home.path(), std::chrono::seconds(120));
    ASSERT_EQ(diagnose.exitCode, 1) << diagnose.standardOutput.toStdString();
    const auto plan =
        workflow({u"plan"_qs, u"revert-knob"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs,
                  u"demo"_qs, u"--knob"_qs, u"OMP_NUM_THREADS"_qs, u"--json"_qs});
    ASSERT_EQ(plan.exitCode, 0) << plan.standardError.toStdString();
    EXPECT_TRUE(plan.json().object().value(u"needs_evidence_acknowledgement"_qs).toBool())
        << plan.standardOutput.toStdString();
}

// Why co-restart matters: with transfer backend nixl, a prefill restarted
// alone (here by an inventory that calls the pair mooncake, as a person who
// skipped the guard would) comes back healthy on both sides, yet requests
// through the router fail until both sides restart; the co-restart clears
// it, and its failure watch sees no new bootstrap or transfer failure.
TEST_F(CliWorkflow, ANixlPairHangsAfterOneSideRestartsAndTheCoRestartClearsIt)
{
    const QString inventory = up({u"--transfer-backend"_qs, u"nixl"_qs});
    QByteArray yaml = test::readFile(inventory);
    ASSERT_TRUE(yaml.contains("transfer_backend: nixl"));
    const QString unguarded = m_home.path() + u"/unguarded.yaml"_qs;
    yaml.replace("transfer_backend: nixl", "transfer_backend: mooncake");
    ASSERT_TRUE(test::writeFile(unguarded, yaml));

    // Refused on the real inventory: one side of a nixl pair.
    const auto refused =
        workflow({u"run"_qs, u"restart"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs,
                  u"demo"_qs, u"--service"_qs, u"prefill"_qs, u"--confirm"_qs, u"prefill"_qs});
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_TRUE(refused.standardError.contains("transfers KV with nixl"))
        << refused.standardError.toStdString();

    const auto alone =
        workflow({u"run"_qs, u"restart"_qs, u"--inventory"_qs, unguarded, u"--cluster"_qs,
                  u"demo"_qs, u"--service"_qs, u"prefill"_qs, u"--confirm"_qs, u"prefill"_qs});
    EXPECT_EQ(alone.exitCode, 1) << alone.standardOutput.toStdString();
    // Both sides healthy, the router ready, the requests through it failing.
    EXPECT_TRUE(alone.standardOutput.contains("health: passed"))
        << alone.standardOutput.toStdString();
    EXPECT_TRUE(alone.standardOutput.contains("router ready, 2 workers healthy"));
    EXPECT_TRUE(alone.standardOutput.contains("end-to-end: FAILED"))
        << alone.standardOutput.toStdString();
    QFile decodeLog(log("decode"));
    ASSERT_TRUE(decodeLog.open(QIODevice::ReadOnly));
    EXPECT_TRUE(decodeLog.readAll().contains("nixl: stale agent metadata for prefill"));

    const auto both = workflow({u"run"_qs, u"co-restart"_qs, u"--inventory"_qs, inventory,
                                u"--cluster"_qs, u"demo"_qs, u"--confirm"_qs, u"demo"_qs});
    ASSERT_EQ(both.exitCode, 0) << both.standardOutput.toStdString();
    EXPECT_TRUE(both.standardOutput.contains("end-to-end: passed"))
        << both.standardOutput.toStdString();
    EXPECT_TRUE(both.standardOutput.contains("no bootstrap or transfer failure in 1 s"));
}

// A router that keeps a worker which failed enough health checks out for
// good (newer SGLang gateways; the sim's --worker-failed-after): the
// co-restart's readiness step removes it and adds it again through the
// router's worker API, and the co-restart ends well.
TEST_F(CliWorkflow, AWorkerTheRouterMarkedFailedIsRegisteredAgain)
{
    const QString inventory = up();
    const QString routerScript = demoDir() + u"/serve_router.sh"_qs;
    ASSERT_TRUE(test::writeFile(routerScript, test::readFile(routerScript).trimmed() +
                                                  " --worker-failed-after 2\n"));
    const auto router =
        workflow({u"run"_qs, u"restart"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs,
                  u"demo"_qs, u"--service"_qs, u"router"_qs, u"--confirm"_qs, u"router"_qs});
    ASSERT_EQ(router.exitCode, 0) << router.standardOutput.toStdString();

    const auto run = workflow({u"run"_qs, u"co-restart"_qs, u"--inventory"_qs, inventory,
                               u"--cluster"_qs, u"demo"_qs, u"--confirm"_qs, u"demo"_qs});
    ASSERT_EQ(run.exitCode, 0) << run.standardOutput.toStdString();
    EXPECT_TRUE(run.standardOutput.contains("failed for good: removing it and adding it again"))
        << run.standardOutput.toStdString();
    EXPECT_TRUE(run.standardOutput.contains("added again (HTTP 202)"))
        << run.standardOutput.toStdString();
    QFile log(this->log("router"));
    ASSERT_TRUE(log.open(QIODevice::ReadOnly));
    const QByteArray said = log.readAll();
    EXPECT_TRUE(said.contains("marked failed until it is removed and added again"));
    EXPECT_TRUE(said.contains("added through the API"));
}

// The audit copy on the host is appended only to a regular file: a link to
// another file or a FIFO is refused at once (the run goes on), the refusal
// is said in the result and written to the local audit log, and the linked
// file is untouched.
TEST_F(CliWorkflow, TheHostAuditCopyNeverFollowsALinkOrBlocksOnAFifo)
{
    const QString inventory = up();
    const QByteArray yaml = test::readFile(inventory);
    ASSERT_FALSE(yaml.isEmpty());
    const QString victim = m_home.path() + u"/victim.txt"_qs;
    ASSERT_TRUE(test::writeFile(victim, "not an audit log\n"));
    const QString link = m_home.path() + u"/link.log"_qs;
    ASSERT_TRUE(QFile::link(victim, link));
    const QString fifo = m_home.path() + u"/fifo.log"_qs;
    ASSERT_EQ(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    const QString secondName = m_home.path() + u"/hard.log"_qs;
    ASSERT_EQ(
        ::link(QFile::encodeName(victim).constData(), QFile::encodeName(secondName).constData()),
        0);
    for (const QString &target : {link, fifo, secondName}) {
        SCOPED_TRACE(target.toStdString());
        QByteArray changed = yaml;
        const QByteArray line = "    audit_log: " + target.toUtf8() + "\n    transfer_backend:";
        changed.replace(QByteArray("    transfer_backend:"), line);
        const QString path = m_home.path() + u"/copy.yaml"_qs;
        ASSERT_TRUE(test::writeFile(path, changed));
        QElapsedTimer clock;
        clock.start();
        const auto run = workflow({u"run"_qs, u"restart-proxy"_qs, u"--inventory"_qs, path,
                                   u"--cluster"_qs, u"demo"_qs, u"--confirm"_qs, u"demo"_qs});
        EXPECT_EQ(run.exitCode, 0) << run.standardOutput.toStdString();
        EXPECT_TRUE(run.standardOutput.contains(target == secondName ? "has 2 hard links"
                                                                     : "is not a regular file"))
            << run.standardOutput.toStdString();
        EXPECT_LT(clock.elapsed(), 60'000) << "the copy never blocks the run";
        EXPECT_TRUE(actionsOf(audit()).contains(u"audit-copy-failed"_qs));
    }
    EXPECT_EQ(test::readFile(victim), QByteArray("not an audit log\n"));
}

// The co-restart with the host reached over SSH (a real sshd on loopback):
// it runs to the end. Then a run whose connections are killed while it
// starts decode (a start made to take 3 s, running on the host) says the
// command's outcome is unknown, stops with its journal, and `workflow
// resume` over a new connection finishes it, whether the cut start went on
// on the host or not (the start lock: one decode, never two); connections
// killed while it polls for the old processes' exit are said and asked
// again.
TEST_F(CliWorkflow, OverSshACoRestartRunsAndADroppedConnectionIsReportedAndResumable)
{
    const QString local = up();
    test::SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    QByteArray yaml = test::readFile(local);
    ASSERT_TRUE(yaml.contains("  - name: local\n    kind: local\n"));
    // Named as the ssh_config's alias, which gives the client key.
    yaml.replace("  - name: local\n    kind: local\n",
                 u"  - name: %1\n    kind: ssh\n    address: 127.0.0.1\n    port: %2\n"
                 u"    user: %3\n"_qs.arg(test::SshdProcess::alias())
                     .arg(sshd.port())
                     .arg(sshd.loginUser())
                     .toUtf8());
    QByteArray hostLine("    host: ");
    hostLine += test::SshdProcess::alias().toUtf8();
    hostLine += '\n';
    yaml.replace(QByteArray("    host: local\n"), hostLine);
    const QByteArray serveDecode =
        u"umask 077; setsid bash '%1/serve_decode.sh'"_qs.arg(demoDir()).toUtf8();
    ASSERT_TRUE(yaml.contains(serveDecode));
    // The start says it runs on the host (the marker) before its 3 s.
    const QString startMarker = m_home.filePath(u"decode-start-runs"_qs);
    yaml.replace(serveDecode,
                 u": >'%1'; sleep 3; "_qs.arg(startMarker).toUtf8().append(serveDecode));
    const QString inventory = m_home.filePath(u"over-ssh.yaml"_qs);
    ASSERT_TRUE(test::writeFile(inventory, yaml));
    const QStringList ssh{u"--ssh-config"_qs, sshd.sshConfig(), u"--known-hosts"_qs,
                          sshd.knownHosts()};
    const QStringList coRestart =
        QStringList{u"run"_qs,       u"co-restart"_qs, u"--inventory"_qs, inventory,
                    u"--cluster"_qs, u"demo"_qs,       u"--confirm"_qs,   u"demo"_qs} +
        ssh;
    const auto killConnections = [&sshd] {
        for (const qint64 connection : sshd.connectionPids()) {
            for (const qint64 child : test::SshdProcess::childPids(connection))
                ::kill(pid_t(child), SIGKILL);
            ::kill(pid_t(connection), SIGKILL);
        }
    };

    const QByteArray decodeBefore = test::readFile(demoDir() + u"/run/decode.pid"_qs);
    const auto run = workflow(coRestart);
    ASSERT_EQ(run.exitCode, 0) << run.standardOutput.toStdString()
                               << run.standardError.toStdString();
    EXPECT_NE(test::readFile(demoDir() + u"/run/decode.pid"_qs), decodeBefore);
    EXPECT_TRUE(run.standardOutput.contains("start decode@opsdeck-test"))
        << run.standardOutput.toStdString();
    EXPECT_TRUE(sshd.errorText().contains(u"Accepted publickey"_qs)) << "it went through sshd";

    ASSERT_TRUE(QFile::remove(startMarker));
    QProcess cli;
    test::startCli(cli,
                   QStringList{u"workflow"_qs} + coRestart +
                       QStringList{u"--data-dir"_qs, dataDir(), u"--idle-gap"_qs, u"1"_qs,
                                   u"--failure-watch"_qs, u"1"_qs},
                   m_home.path());
    QByteArray said;
    const auto until = [&](const char *line) {
        return test::waitUntil(
            [&] {
                said += cli.readAllStandardOutput();
                return said.contains(line);
            },
            std::chrono::seconds(60));
    };
    ASSERT_TRUE(until("\n5. wait until prefill has exited on opsdeck-test ...\n"))
        << said.toStdString();
    killConnections();
    ASSERT_TRUE(until("| start decode@opsdeck-test: : >")) << said.toStdString();
    ASSERT_TRUE(
        test::waitUntil([&] { return QFile::exists(startMarker); }, std::chrono::seconds(30)))
        << said.toStdString();
    killConnections();
    ASSERT_TRUE(cli.waitForFinished(120000));
    said += cli.readAllStandardOutput();
    EXPECT_EQ(cli.exitCode(), 1) << said.toStdString();
    // Killed between two polls, the next poll just reconnects; killed during
    // one, it is said ("...; asking again"): either way the run went on to
    // step 8. Killed during the start, the start's outcome is unknown:
    EXPECT_TRUE(said.contains("decode on host opsdeck-test did not start: result unknown (no exit "
                              "status): connection to opsdeck-test lost"))
        << said.toStdString();
    EXPECT_TRUE(said.contains("opsdeck-cli workflow resume")) << said.toStdString();

    const auto listed = workflow({u"list"_qs, u"--json"_qs});
    const QJsonObject entry = listed.json().array().first().toObject();
    EXPECT_EQ(entry.value(u"outcome"_qs).toString(), u"failed"_qs);
    EXPECT_EQ(entry.value(u"last_ended"_qs).toInt(), 8) << listed.standardOutput.toStdString();
    const auto resumed = workflow(
        QStringList{u"resume"_qs, u"--inventory"_qs, inventory, u"--confirm"_qs, u"demo"_qs} + ssh);
    ASSERT_EQ(resumed.exitCode, 0)
        << resumed.standardOutput.toStdString() << resumed.standardError.toStdString()
        << "decode's log:\n"
        << test::readFile(demoDir() + u"/logs/decode.log"_qs).right(2000).toStdString();
    const auto status = runCli({u"status"_qs, u"--inventory"_qs, local});
    EXPECT_EQ(status.exitCode, 0) << status.standardOutput.toStdString();
}

// A co-restart with --drain while a long streamed request runs through the
// router: each engine is removed from the router, the request is waited for
// and ends whole ("[DONE]", not cut by the stop), and every engine is added
// back; the cluster then serves.
TEST_F(CliWorkflow, ADrainedCoRestartLetsTheRunningRequestFinish)
{
    const QString inventory = up();
    const QString router = urlOf(inventory, u"router"_qs);
    ASSERT_FALSE(router.isEmpty());
    QProcess request;
    request.start(u"curl"_qs, {u"-sN"_qs, u"-m"_qs, u"60"_qs, u"-H"_qs,
                               u"Content-Type: application/json"_qs, u"-d"_qs,
                               u"{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":"
                               u"\"hi\"}],\"max_tokens\":400,\"stream\":true}"_qs,
                               router + u"/v1/chat/completions"_qs});
    QByteArray streamed;
    ASSERT_TRUE(test::waitUntil(
        [&] {
            streamed += request.readAllStandardOutput();
            return streamed.contains("data:");
        },
        std::chrono::seconds(30)))
        << "the request is under way";

    const auto run = workflow({u"run"_qs, u"co-restart"_qs, u"--inventory"_qs, inventory,
                               u"--cluster"_qs, u"demo"_qs, u"--confirm"_qs, u"demo"_qs,
                               u"--drain"_qs, u"--drain-timeout"_qs, u"60"_qs, u"--json"_qs});
    ASSERT_TRUE(request.waitForFinished(60000));
    streamed += request.readAllStandardOutput();
    EXPECT_EQ(request.exitCode(), 0) << "curl: the stream was not cut";
    EXPECT_TRUE(streamed.contains("data: [DONE]")) << streamed.right(300).toStdString();
    EXPECT_EQ(run.exitCode, 0) << run.standardOutput.toStdString();
    QStringList details;
    for (const QJsonValue &step : run.json().object().value(u"steps"_qs).toArray())
        details << step.toObject().value(u"detail"_qs).toString();
    const QString said = details.join(u'\n');
    EXPECT_TRUE(said.contains(u"removed from router (HTTP 202); no running request on decode"_qs))
        << said.toStdString();
    EXPECT_TRUE(said.contains(u"added back to router: POST"_qs)) << said.toStdString();
    EXPECT_EQ(said.count(u"added back to router"_qs), 2) << said.toStdString();
    const auto status = runCli({u"status"_qs, u"--inventory"_qs, inventory});
    EXPECT_EQ(status.exitCode, 0) << status.standardOutput.toStdString();
}

// The failure watch fails the workflow when the engines' counters rise
// during it: here a request sent to the decode with a bootstrap server that
// nothing serves (a decode that cannot reach its prefill's bootstrap), as
// the watch's 6 s run.
TEST_F(CliWorkflow, TheFailureWatchFailsTheWorkflowWhenBootstrapFailuresRise)
{
    const QString inventory = up();
    const QString decode = urlOf(inventory, u"decode"_qs);
    ASSERT_FALSE(decode.isEmpty());
    QProcess cli;
    test::startCli(cli,
                   {u"workflow"_qs, u"run"_qs, u"co-restart"_qs, u"--inventory"_qs, inventory,
                    u"--cluster"_qs, u"demo"_qs, u"--confirm"_qs, u"demo"_qs, u"--data-dir"_qs,
                    dataDir(), u"--idle-gap"_qs, u"1"_qs, u"--failure-watch"_qs, u"6"_qs},
                   m_home.path());
    QByteArray said;
    ASSERT_TRUE(test::waitUntil(
        [&] {
            said += cli.readAllStandardOutput();
            return said.contains("| bootstrap failures 0, transfer failures 0 now; again in 6 s");
        },
        std::chrono::seconds(120)))
        << said.toStdString();
    QProcess request;
    request.start(u"curl"_qs,
                  {u"-s"_qs, u"-m"_qs, u"10"_qs, u"-o"_qs, u"/dev/null"_qs, u"-w"_qs,
                   u"%{http_code}"_qs, u"-H"_qs, u"Content-Type: application/json"_qs, u"-d"_qs,
                   u"{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":"
                   u"\"hi\"}],\"bootstrap_host\":\"127.0.0.1\",\"bootstrap_port\":%1,"
                   u"\"bootstrap_room\":7}"_qs.arg(test::freeTcpPort()),
                   decode + u"/v1/chat/completions"_qs});
    ASSERT_TRUE(request.waitForFinished(15000));
    EXPECT_EQ(request.readAllStandardOutput(), "500") << "the decode says it failed";
    ASSERT_TRUE(cli.waitForFinished(60000));
    said += cli.readAllStandardOutput();
    EXPECT_EQ(cli.exitCode(), 1) << said.toStdString();
    EXPECT_TRUE(said.contains("1 bootstrap and 0 transfer failures since the co-restart"))
        << said.toStdString();
    const QVector<history::AuditEntry> entries = audit();
    const auto failed = std::find_if(entries.cbegin(), entries.cend(), [](const auto &entry) {
        return entry.detail.contains(u"bootstrap and 0 transfer failures"_qs);
    });
    EXPECT_NE(failed, entries.cend()) << "the watch's failure is audited";
}

// With --auto-rollback, a revert whose restart fails (here the decode's
// script refuses to start without the knob) is rolled back at once: a
// restore-knob workflow from the backup the failed run made, audited as
// automatic, leaves the script byte for byte as it was and the pair
// serving; the command still exits 1 (what it ran failed). An earlier revert
// of the same knob on another service (the prefill's) is not the failed
// run's and stays. A restore whose recorded backup was changed since is
// refused.
TEST_F(CliWorkflow, WithAutoRollbackAFailedRevertIsRestoredAtOnce)
{
    const QString inventory = up();
    const QString prefill = demoDir() + u"/serve_prefill.sh"_qs;
    ASSERT_TRUE(
        test::writeFile(prefill, test::readFile(prefill).replace(
                                     "exec ", "export SGLANG_SM120_MMA_TARGET_CTAS=512\nexec ")));
    const auto earlier =
        workflow({u"run"_qs, u"revert-knob"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs,
                  u"demo"_qs, u"--service"_qs, u"prefill"_qs, u"--knob"_qs,
                  u"SGLANG_SM120_MMA_TARGET_CTAS"_qs, u"--confirm"_qs, u"prefill"_qs});
    ASSERT_EQ(earlier.exitCode, 0) << earlier.standardOutput.toStdString();
    const QByteArray prefillReverted = test::readFile(prefill);
    ASSERT_TRUE(prefillReverted.contains("# export SGLANG_SM120_MMA_TARGET_CTAS"));

    const QString script = demoDir() + u"/serve_decode.sh"_qs;
    ASSERT_TRUE(test::writeFile(
        script, test::readFile(script).replace(
                    "exec ", "[ -n \"$SGLANG_SM120_MMA_TARGET_CTAS\" ] || { echo 'no MMA target' "
                             ">&2; exit 1; }\nexec ")));
    const QByteArray original = test::readFile(script);

    // The whole cluster: only the decode still sets the knob.
    const auto run =
        workflow({u"run"_qs, u"revert-knob"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs,
                  u"demo"_qs, u"--knob"_qs, u"SGLANG_SM120_MMA_TARGET_CTAS"_qs, u"--confirm"_qs,
                  u"demo"_qs, u"--auto-rollback"_qs, u"--json"_qs});
    EXPECT_EQ(run.exitCode, 1) << run.standardOutput.toStdString();
    const QJsonObject result = run.json().object();
    EXPECT_EQ(result.value(u"kind"_qs).toString(), u"revert-knob"_qs);
    EXPECT_EQ(result.value(u"outcome"_qs).toString(), u"failed"_qs);
    const QJsonObject rollback = result.value(u"rollback"_qs).toObject();
    EXPECT_EQ(rollback.value(u"outcome"_qs).toString(), u"succeeded"_qs)
        << run.standardOutput.toStdString();
    EXPECT_EQ(test::readFile(script), original) << "the backup is back, byte for byte";
    EXPECT_EQ(test::readFile(prefill), prefillReverted)
        << "the earlier revert on the prefill was not the failed run's: it stays";
    const QVector<history::AuditEntry> entries = audit();
    const auto automatic = std::find_if(entries.cbegin(), entries.cend(), [&](const auto &entry) {
        return entry.action == u"rollback-automatic"_qs &&
               entry.workflow == result.value(u"id"_qs).toString();
    });
    EXPECT_NE(automatic, entries.cend()) << "audited, naming the failed workflow";
    const auto listed = workflow({u"list"_qs, u"--json"_qs});
    const QJsonArray workflows = listed.json().array();
    ASSERT_GE(workflows.size(), 3);
    EXPECT_EQ(workflows.at(0).toObject().value(u"kind"_qs).toString(), u"restore-knob"_qs);
    EXPECT_EQ(workflows.at(0).toObject().value(u"outcome"_qs).toString(), u"succeeded"_qs);
    const auto status = runCli({u"status"_qs, u"--inventory"_qs, inventory});
    EXPECT_EQ(status.exitCode, 0) << status.standardOutput.toStdString();

    // Without the flag (and the setting), nothing is rolled back unasked.
    const auto asked =
        workflow({u"run"_qs, u"revert-knob"_qs, u"--inventory"_qs, inventory, u"--cluster"_qs,
                  u"demo"_qs, u"--service"_qs, u"decode"_qs, u"--knob"_qs,
                  u"SGLANG_SM120_MMA_TARGET_CTAS"_qs, u"--confirm"_qs, u"decode"_qs});
    EXPECT_EQ(asked.exitCode, 1);
    EXPECT_TRUE(asked.standardOutput.contains("to roll back "))
        << asked.standardOutput.toStdString();
    const QByteArray reverted = test::readFile(script);
    EXPECT_NE(reverted, original);

    // The failed run's backup, as its output names it for rolling back.
    const QRegularExpressionMatch named =
        QRegularExpression(u"--backup '([^']+)'"_qs).match(QString::fromUtf8(asked.standardOutput));
    ASSERT_TRUE(named.hasMatch()) << asked.standardOutput.toStdString();
    const QString backup = named.captured(1);
    const QByteArray kept = test::readFile(backup);
    const QStringList restoreKnob{u"run"_qs,         u"restore-knob"_qs,
                                  u"--inventory"_qs, inventory,
                                  u"--cluster"_qs,   u"demo"_qs,
                                  u"--service"_qs,   u"decode"_qs,
                                  u"--knob"_qs,      u"SGLANG_SM120_MMA_TARGET_CTAS"_qs,
                                  u"--confirm"_qs,   u"decode"_qs};

    // Changed behind OpsDeck's back: refused, found by the journal or given.
    ASSERT_TRUE(test::writeFile(backup, kept + "# changed\n"));
    for (const QStringList &extra : {QStringList{}, QStringList{u"--backup"_qs, backup}}) {
        const auto refused = workflow(restoreKnob + extra);
        EXPECT_EQ(refused.exitCode, 2) << refused.standardOutput.toStdString();
        EXPECT_TRUE(refused.standardError.contains("the journal recorded"))
            << refused.standardError.toStdString();
        EXPECT_EQ(test::readFile(script), reverted) << "nothing restored";
    }

    // As it was made: the command the failed run printed puts the script back
    // byte for byte, and the decode starts again.
    ASSERT_TRUE(test::writeFile(backup, kept));
    const auto restored = workflow(restoreKnob + QStringList{u"--backup"_qs, backup});
    EXPECT_EQ(restored.exitCode, 0) << restored.standardOutput.toStdString();
    EXPECT_EQ(test::readFile(script), original);
}
