// Workflows from the window on the demo cluster: the cluster bar's
// Co-restart… opens the plan with the evidence, Run stays disabled until the
// cluster's name is typed, then the steps run live (state and time per step,
// streaming output) to a result naming the journal; the Audit view shows the
// workflow's entries, filters them and exports them as JSON and Markdown. A
// read-only inventory plans but does not run until it is armed for the
// session by typing its name (audited). Set OPSDECK_SCREENSHOT_DIR to keep
// each state of the dialog as a PNG for a person to look at.
#include "auditexport.h"
#include "audittab.h"
#include "audittablemodel.h"
#include "clusteractionsbar.h"
#include "guiwatchdog.h"
#include "mainwindow.h"
#include "servicecard.h"
#include "servicespanel.h"
#include "testsupport.h"
#include "workflowdialog.h"
#include "workflowplanview.h"
#include "workflowprogressview.h"
#include "workflowsession.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeWidget>
#include <gtest/gtest.h>

using namespace opsdeck;
using namespace std::chrono_literals;
using opsdeck::test::waitUntil;

namespace {

void keepScreenshot(QWidget *widget, const QString &name)
{
    // For a person to look at (never compared).
    if (const QString dir = qEnvironmentVariable("OPSDECK_SCREENSHOT_DIR"); !dir.isEmpty())
        widget->grab().save(dir + u'/' + name + QStringLiteral(".png"));
}

// A window watching a demo cluster started for the test; closed (every
// process stopped) when it goes.
struct DemoWindow
{
    QTemporaryDir dir;
    std::unique_ptr<MainWindow> window = std::make_unique<MainWindow>();

    bool start(const QString &fault = {})
    {
        demo::DemoOptions options;
        if (!fault.isEmpty())
            options.fault = demo::DemoFault::parse(fault, nullptr);
        options.dir = dir.path() + QStringLiteral("/demo");
        options.simBinary = test::binPath(QStringLiteral("opsdeck-sim"));
        options.trafficClients = 2;
        window->setDataDir(dir.path() + QStringLiteral("/data"));
        QSignalSpy started(window.get(), &MainWindow::demoStarted);
        window->startDemo(options);
        window->show();
        if (!started.wait(60000) || !started.first().at(0).toBool())
            return false;
        // The verification's keep-alive stage idles 1 s, not 10, and the
        // failure counters are watched 1 s, not 30 (CI time).
        auto context = window->session()->workflows()->context();
        context.runner.verification.keepAliveIdleGapS = 1;
        context.timings.failureWatchS = 1;
        window->session()->workflows()->setContext(context);
        window->clusterActionsBar()->refresh();
        return true;
    }
    // A console (the CLI) killed by SIGKILL while its co-restart waits for
    // the old processes: no end in the journal, the lock left behind.
    void killCoRestartFromTheCli()
    {
        QProcess cli;
        cli.setProcessChannelMode(QProcess::MergedChannels);
        cli.start(test::binPath(QStringLiteral("opsdeck-cli")),
                  {QStringLiteral("workflow"), QStringLiteral("run"), QStringLiteral("co-restart"),
                   QStringLiteral("--inventory"), window->session()->inventoryPath(),
                   QStringLiteral("--cluster"), QStringLiteral("demo"), QStringLiteral("--confirm"),
                   QStringLiteral("demo"), QStringLiteral("--data-dir"),
                   dir.path() + QStringLiteral("/demo")});
        QByteArray said;
        ASSERT_TRUE(waitUntil(
            [&] {
                said += cli.readAll();
                // The step's start, not the plan's line of it.
                return said.contains("\n4. wait until decode has exited on local ...\n");
            },
            60s))
            << said.toStdString();
        cli.kill();
        ASSERT_TRUE(cli.waitForFinished(5000));
    }
    // A revert of the decode's knob planned from the cluster bar, confirmed,
    // whose restart will fail: the decode's script refuses to start without
    // the knob. `original` is the script before the revert.
    void planAFailingRevert(QByteArray *original, WorkflowDialog **planned)
    {
        const QString script = dir.path() + QStringLiteral("/demo/serve_decode.sh");
        ASSERT_TRUE(test::writeFile(
            script,
            test::readFile(script).replace(
                "exec ", "[ -n \"$SGLANG_SM120_MMA_TARGET_CTAS\" ] || { echo 'no MMA target' "
                         ">&2; exit 1; }\nexec ")));
        *original = test::readFile(script);
        window->clusterActionsBar()->revertKnobButton()->click();
        WorkflowDialog *dialog = window->workflowDialog();
        ASSERT_NE(dialog, nullptr);
        dialog->knobEdit()->setText(QStringLiteral("SGLANG_SM120_MMA_TARGET_CTAS"));
        dialog->planButton()->click();
        ASSERT_TRUE(waitUntil([&] { return dialog->planView()->plan().has_value(); }, 10s))
            << dialog->planView()->planText()->toPlainText().toStdString();
        dialog->planView()->confirmEdit()->setText(QStringLiteral("demo"));
        ASSERT_TRUE(dialog->planView()->runButton()->isEnabled())
            << dialog->planView()->guardLabel()->text().toStdString();
        *planned = dialog;
    }
    ~DemoWindow()
    {
        QSignalSpy shutdown(window.get(), &MainWindow::shutdownFinished);
        window->close();
        shutdown.wait(30000);
    }
};

} // namespace

TEST(WorkflowWindow, CoRestartFromTheClusterBarRunsLiveAndEndsInTheAuditView)
{
    DemoWindow demo;
    ASSERT_TRUE(demo.start()) << "the demo did not start";
    MainWindow *window = demo.window.get();
    ClusterActionsBar *bar = window->clusterActionsBar();
    ASSERT_TRUE(bar->isVisible());
    EXPECT_EQ(bar->cluster(), QStringLiteral("demo"));
    ASSERT_TRUE(bar->coRestartButton()->isEnabled());
    keepScreenshot(window, QStringLiteral("workflow-0-window"));

    bar->coRestartButton()->click();
    WorkflowDialog *dialog = window->workflowDialog();
    ASSERT_NE(dialog, nullptr);
    WorkflowPlanView *plan = dialog->planView();
    ASSERT_TRUE(waitUntil([&] { return plan->plan().has_value(); }, 10s))
        << plan->planText()->toPlainText().toStdString();
    const QString text = plan->planText()->toPlainText();
    EXPECT_TRUE(text.contains(QStringLiteral("stop decode"))) << text.toStdString();
    EXPECT_LT(text.indexOf(QStringLiteral("stop decode")),
              text.indexOf(QStringLiteral("stop prefill")))
        << "decode stops before prefill";
    // Nothing typed: the guard says what to type, Run is disabled.
    EXPECT_FALSE(plan->runButton()->isEnabled());
    EXPECT_TRUE(plan->guardLabel()->text().contains(QStringLiteral("demo")))
        << plan->guardLabel()->text().toStdString();
    keepScreenshot(dialog, QStringLiteral("workflow-1-plan"));
    // Drain first: planned again, the engines taken out of the router first.
    ASSERT_TRUE(dialog->drainBox()->isVisible());
    const auto planSays = [&](const char *words) {
        return plan->plan().has_value() &&
               plan->planText()->toPlainText().contains(QLatin1String(words));
    };
    dialog->drainBox()->setChecked(true);
    ASSERT_TRUE(waitUntil([&] { return planSays("drain decode through router"); }, 10s))
        << plan->planText()->toPlainText().toStdString();
    keepScreenshot(dialog, QStringLiteral("workflow-1b-drain-plan"));
    dialog->drainBox()->setChecked(false);
    ASSERT_TRUE(
        waitUntil([&] { return !planSays("drain decode") && planSays("stop decode"); }, 10s));
    plan->confirmEdit()->setText(QStringLiteral("dmeo"));
    EXPECT_FALSE(plan->runButton()->isEnabled()) << "a wrong name confirms nothing";
    EXPECT_TRUE(plan->guardLabel()->text().contains(QStringLiteral("dmeo")));
    plan->confirmEdit()->setText(QStringLiteral("demo"));
    ASSERT_TRUE(plan->runButton()->isEnabled()) << plan->guardLabel()->text().toStdString();

    QSignalSpy finished(window->session()->workflows(), &workflows::WorkflowSession::finished);
    {
        test::GuiWatchdog watchdog; // the window never blocks while steps run
        plan->runButton()->click();
        WorkflowProgressView *progress = dialog->progressView();
        ASSERT_TRUE(waitUntil([&] { return progress->stateOf(1) == QStringLiteral("ok"); }, 20s));
        ASSERT_TRUE(waitUntil(
            [&] {
                for (int n = 1; n <= progress->steps()->topLevelItemCount(); ++n)
                    if (progress->stateOf(n) == QStringLiteral("running"))
                        return true;
                return false;
            },
            20s));
        EXPECT_TRUE(dialog->isRunning());
        EXPECT_FALSE(progress->output()->toPlainText().isEmpty()) << "the steps' output streams";
        keepScreenshot(dialog, QStringLiteral("workflow-2-running"));
        ASSERT_TRUE(finished.wait(180000) || !finished.isEmpty()) << "the co-restart never ended";
    }
    WorkflowProgressView *progress = dialog->progressView();
    EXPECT_EQ(finished.first().at(0).value<workflows::WorkflowRunner::Outcome>(),
              workflows::WorkflowRunner::Outcome::Succeeded)
        << finished.first().at(1).toString().toStdString()
        << progress->output()->toPlainText().toStdString();
    const QString id = finished.first().at(2).toString();
    for (int n = 1; n <= progress->steps()->topLevelItemCount(); ++n)
        EXPECT_EQ(progress->stateOf(n), QStringLiteral("ok")) << "step " << n;
    EXPECT_TRUE(progress->resultLabel()->text().contains(id));
    EXPECT_TRUE(progress->resultLabel()->text().contains(QStringLiteral("succeeded")));
    keepScreenshot(dialog, QStringLiteral("workflow-3-result"));
    progress->cancelButton()->click(); // "Close" once ended
    ASSERT_TRUE(waitUntil([&] { return window->workflowDialog() == nullptr; }, 5s));

    // The Audit view: the workflow's entries, filtered by its id, exported.
    AuditTab *audit = window->auditTab();
    window->tabs()->setCurrentWidget(audit);
    audit->filterEdit()->setText(id);
    ASSERT_GT(audit->model()->rowCount(), 3) << audit->statusLabel()->text().toStdString();
    for (int row = 0; row < audit->model()->rowCount(); ++row)
        EXPECT_EQ(audit->model()->entry(row).workflow, id);
    keepScreenshot(window, QStringLiteral("workflow-4-audit"));
    const QString json = demo.dir.filePath(QStringLiteral("audit.json"));
    const QString markdown = demo.dir.filePath(QStringLiteral("audit.md"));
    QString error;
    ASSERT_TRUE(audit->exportTo(json, false, &error)) << error.toStdString();
    ASSERT_TRUE(audit->exportTo(markdown, true, &error)) << error.toStdString();
    QFile jsonFile(json);
    ASSERT_TRUE(jsonFile.open(QIODevice::ReadOnly));
    const QJsonArray exported = QJsonDocument::fromJson(jsonFile.readAll()).array();
    EXPECT_EQ(exported.size(), audit->model()->rowCount()) << "exactly the rows in view";
    EXPECT_EQ(exported.first().toObject().value(QStringLiteral("workflow")).toString(), id);
    QFile markdownFile(markdown);
    ASSERT_TRUE(markdownFile.open(QIODevice::ReadOnly));
    const QString md = QString::fromUtf8(markdownFile.readAll());
    qsizetype rowsWithId = 0;
    for (const QString &line : md.split(u'\n'))
        rowsWithId += line.startsWith(QStringLiteral("| ")) && line.contains(id) ? 1 : 0;
    EXPECT_EQ(rowsWithId, audit->model()->rowCount()) << md.toStdString();
    EXPECT_TRUE(md.contains(QStringLiteral("| # | time (UTC) |")));
    // A since in the future shows nothing; a bad one says what it takes.
    audit->sinceEdit()->setText(QStringLiteral("2999-01-01T00:00:00"));
    Q_EMIT audit->sinceEdit()->editingFinished();
    EXPECT_EQ(audit->model()->rowCount(), 0);
    audit->sinceEdit()->setText(QStringLiteral("yesterday"));
    Q_EMIT audit->sinceEdit()->editingFinished();
    EXPECT_TRUE(audit->statusLabel()->text().contains(QStringLiteral("bad since 'yesterday'")));
}

TEST(WorkflowWindow, AReadOnlyInventoryPlansButRunsOnlyOnceArmedForTheSession)
{
    DemoWindow demo;
    ASSERT_TRUE(demo.start()) << "the demo did not start";
    MainWindow *window = demo.window.get();
    // The demo's inventory, read-only.
    const QString path = window->session()->inventoryPath();
    const QString readOnly = demo.dir.filePath(QStringLiteral("read-only.yaml"));
    ASSERT_TRUE(
        test::writeFile(readOnly, test::readFile(path).replace("armed: true", "armed: false")));
    ASSERT_TRUE(window->openInventory(readOnly));
    auto *session = window->session()->workflows();
    ASSERT_FALSE(session->armed());

    // The decode card's Restart… opens the restart of decode.
    ServiceCard *decode = nullptr;
    for (int row = 0; row < window->servicesPanel()->cardCount(); ++row)
        if (window->servicesPanel()->card(row)->status().name == QStringLiteral("decode"))
            decode = window->servicesPanel()->card(row);
    ASSERT_NE(decode, nullptr);
    decode->restartButton()->click();
    WorkflowDialog *dialog = window->workflowDialog();
    ASSERT_NE(dialog, nullptr);
    WorkflowPlanView *plan = dialog->planView();
    ASSERT_TRUE(waitUntil([&] { return plan->plan().has_value(); }, 10s))
        << plan->planText()->toPlainText().toStdString();
    EXPECT_EQ(plan->plan()->service, QStringLiteral("decode"));
    plan->confirmEdit()->setText(QStringLiteral("decode"));
    EXPECT_FALSE(plan->runButton()->isEnabled());
    EXPECT_TRUE(plan->guardLabel()->text().contains(QStringLiteral("read-only")))
        << plan->guardLabel()->text().toStdString();
    EXPECT_TRUE(plan->armButton()->isVisible());
    keepScreenshot(dialog, QStringLiteral("workflow-5-read-only"));

    // Arming needs the inventory's name, typed; a wrong one is refused.
    QSignalSpy refused(session, &workflows::WorkflowSession::refused);
    plan->armEdit()->setText(QStringLiteral("inventory.yaml"));
    plan->armButton()->click();
    ASSERT_TRUE(waitUntil([&] { return !refused.isEmpty(); }, 5s));
    EXPECT_FALSE(session->armed());
    QSignalSpy armed(session, &workflows::WorkflowSession::armedChanged);
    plan->armEdit()->setText(QStringLiteral("read-only.yaml"));
    plan->armButton()->click();
    ASSERT_TRUE(armed.wait(10000) || !armed.isEmpty());
    EXPECT_TRUE(session->armed());
    EXPECT_TRUE(plan->runButton()->isEnabled()) << plan->guardLabel()->text().toStdString();
    EXPECT_FALSE(plan->armButton()->isVisible());
    // The arming is in the audit log.
    window->auditTab()->reload();
    bool audited = false;
    for (const auto &entry : window->auditTab()->model()->shown())
        audited = audited || entry.action == QStringLiteral("armed-for-session");
    EXPECT_TRUE(audited);
    dialog->reject();
}

// The incident in the window: with the proxy's keep-alive stall on, the
// background watch diagnoses it; a revert of the decode's knob then leads
// with the evidence warning, Run needs its acknowledgement, and the offer
// plans restart-proxy instead. Reverting the flag on the proxy itself (the
// implicated hop: no warning) runs and its verification's keep-alive passes.
TEST(WorkflowWindow, TheEvidenceWarningLeadsAndTheRightFixRunsFromTheWindow)
{
    DemoWindow demo;
    ASSERT_TRUE(demo.start(QStringLiteral("proxy-reused-stall=5"))) << "the demo did not start";
    MainWindow *window = demo.window.get();
    ASSERT_TRUE(waitUntil([&] { return !window->stallBannerText().isEmpty(); }, 120s))
        << "the watch never diagnosed the stall";

    window->clusterActionsBar()->revertKnobButton()->click();
    WorkflowDialog *dialog = window->workflowDialog();
    ASSERT_NE(dialog, nullptr);
    WorkflowPlanView *plan = dialog->planView();
    EXPECT_FALSE(plan->plan().has_value()) << "nothing is planned before the knob is given";
    dialog->knobEdit()->setText(QStringLiteral("SGLANG_SM120_MMA_TARGET_CTAS"));
    dialog->planButton()->click();
    ASSERT_TRUE(waitUntil([&] { return plan->plan().has_value(); }, 10s))
        << plan->planText()->toPlainText().toStdString();
    EXPECT_TRUE(plan->warningLabel()->isVisible());
    EXPECT_TRUE(plan->warningLabel()->text().startsWith(
        QStringLiteral("The evidence points at proxy: reused connections stall there")))
        << plan->warningLabel()->text().toStdString();
    ASSERT_TRUE(plan->offerButton()->isVisible());
    EXPECT_TRUE(plan->offerButton()->text().contains(QStringLiteral("restart-proxy")));
    plan->confirmEdit()->setText(QStringLiteral("demo"));
    EXPECT_FALSE(plan->runButton()->isEnabled()) << "the warning needs its acknowledgement";
    EXPECT_TRUE(plan->acknowledgeBox()->isVisible());
    keepScreenshot(dialog, QStringLiteral("workflow-6-evidence-warning"));
    plan->acknowledgeBox()->setChecked(true);
    EXPECT_TRUE(plan->runButton()->isEnabled()) << plan->guardLabel()->text().toStdString();

    // The offer: restart-proxy planned instead, without a warning.
    plan->offerButton()->click();
    ASSERT_TRUE(waitUntil(
        [&] { return plan->plan() && plan->plan()->kind == workflows::WorkflowKind::RestartProxy; },
        10s));
    EXPECT_FALSE(plan->warningLabel()->isVisible());
    dialog->reject();
    ASSERT_TRUE(waitUntil([&] { return window->workflowDialog() == nullptr; }, 5s));

    // The right fix: the proxy's own flag reverted, restarted and verified.
    window->clusterActionsBar()->revertKnobButton()->click();
    dialog = window->workflowDialog();
    ASSERT_NE(dialog, nullptr);
    plan = dialog->planView();
    dialog->knobEdit()->setText(QStringLiteral("--fault"));
    dialog->planButton()->click();
    ASSERT_TRUE(waitUntil([&] { return plan->plan().has_value(); }, 10s))
        << plan->planText()->toPlainText().toStdString();
    EXPECT_FALSE(plan->warningLabel()->isVisible()) << "the knob is on the implicated hop";
    EXPECT_TRUE(plan->planText()->toPlainText().contains(QStringLiteral("serve_proxy.sh")));
    plan->confirmEdit()->setText(QStringLiteral("demo"));
    ASSERT_TRUE(plan->runButton()->isEnabled()) << plan->guardLabel()->text().toStdString();
    keepScreenshot(dialog, QStringLiteral("workflow-7-right-fix-plan"));
    QSignalSpy finished(window->session()->workflows(), &workflows::WorkflowSession::finished);
    plan->runButton()->click();
    ASSERT_TRUE(finished.wait(180000) || !finished.isEmpty()) << "the fix never ended";
    EXPECT_EQ(finished.first().at(0).value<workflows::WorkflowRunner::Outcome>(),
              workflows::WorkflowRunner::Outcome::Succeeded)
        << dialog->progressView()->output()->toPlainText().toStdString();
    EXPECT_TRUE(dialog->progressView()->output()->toPlainText().contains(
        QStringLiteral("keep-alive: passed")))
        << dialog->progressView()->output()->toPlainText().toStdString();
    keepScreenshot(dialog, QStringLiteral("workflow-8-right-fix-result"));
}

// A console (here the CLI) killed mid-workflow: the window's cluster bar
// names the unfinished workflow and where it stopped; Abandon ends it,
// audited, and the bar no longer shows it.
TEST(WorkflowWindow, AnUnfinishedWorkflowIsShownAndAbandonedFromTheClusterBar)
{
    DemoWindow demo;
    ASSERT_TRUE(demo.start()) << "the demo did not start";
    MainWindow *window = demo.window.get();
    ASSERT_NO_FATAL_FAILURE(demo.killCoRestartFromTheCli());

    ClusterActionsBar *bar = window->clusterActionsBar();
    bar->refresh();
    ASSERT_TRUE(bar->unfinishedLabel()->isVisible());
    EXPECT_TRUE(bar->unfinishedLabel()->text().contains(QStringLiteral("co-restart of demo")))
        << bar->unfinishedLabel()->text().toStdString();
    EXPECT_TRUE(bar->unfinishedLabel()->text().contains(QStringLiteral("stopped at step")));
    EXPECT_TRUE(bar->resumeButton()->isVisible());
    keepScreenshot(window, QStringLiteral("workflow-9-unfinished"));

    QSignalSpy abandoned(window->session()->workflows(), &workflows::WorkflowSession::abandoned);
    bar->abandonButton()->click();
    ASSERT_TRUE(abandoned.wait(20000) || !abandoned.isEmpty());
    EXPECT_FALSE(bar->unfinishedLabel()->isVisible());
    window->auditTab()->reload();
    bool audited = false;
    for (const auto &entry : window->auditTab()->model()->shown())
        audited = audited || entry.action == QStringLiteral("abandoned");
    EXPECT_TRUE(audited);
    // The engines the killed run left stopped are started again by a co-restart.
    bar->coRestartButton()->click();
    WorkflowDialog *dialog = window->workflowDialog();
    ASSERT_NE(dialog, nullptr);
    ASSERT_TRUE(waitUntil([&] { return dialog->planView()->plan().has_value(); }, 10s));
    dialog->planView()->confirmEdit()->setText(QStringLiteral("demo"));
    ASSERT_TRUE(dialog->planView()->runButton()->isEnabled())
        << dialog->planView()->guardLabel()->text().toStdString();
    QSignalSpy finished(window->session()->workflows(), &workflows::WorkflowSession::finished);
    dialog->planView()->runButton()->click();
    ASSERT_TRUE(finished.wait(120000) || !finished.isEmpty());
    EXPECT_EQ(finished.first().at(0).value<workflows::WorkflowRunner::Outcome>(),
              workflows::WorkflowRunner::Outcome::Succeeded)
        << dialog->progressView()->output()->toPlainText().toStdString();
}

// The two ways back the window offers: Resume… in the cluster bar continues
// a workflow a killed console left (from the step that did not end), and
// Roll back… after a revert whose restart failed plans restore-knob from the
// backup, which leaves the script byte for byte as it was.
TEST(WorkflowWindow, ResumeAndRollBackFromTheWindow)
{
    DemoWindow demo;
    ASSERT_TRUE(demo.start()) << "the demo did not start";
    MainWindow *window = demo.window.get();
    const QString demoDir = demo.dir.path() + QStringLiteral("/demo");
    workflows::WorkflowSession *session = window->session()->workflows();
    ASSERT_NO_FATAL_FAILURE(demo.killCoRestartFromTheCli());

    ClusterActionsBar *bar = window->clusterActionsBar();
    bar->refresh();
    ASSERT_TRUE(bar->resumeButton()->isVisible());
    bar->resumeButton()->click();
    WorkflowDialog *dialog = window->workflowDialog();
    ASSERT_NE(dialog, nullptr);
    ASSERT_TRUE(waitUntil([&] { return dialog->planView()->plan().has_value(); }, 10s));
    EXPECT_FALSE(dialog->planView()->runButton()->isEnabled()) << "guarded as a new run";
    dialog->planView()->confirmEdit()->setText(QStringLiteral("demo"));
    ASSERT_TRUE(dialog->planView()->runButton()->isEnabled())
        << dialog->planView()->guardLabel()->text().toStdString();
    QSignalSpy started(session, &workflows::WorkflowSession::started);
    QSignalSpy finished(session, &workflows::WorkflowSession::finished);
    dialog->planView()->runButton()->click();
    ASSERT_TRUE(finished.wait(120000) || !finished.isEmpty());
    ASSERT_FALSE(started.isEmpty());
    EXPECT_GE(started.first().at(2).toInt(), 4) << "resumed, not begun again";
    EXPECT_EQ(finished.first().at(0).value<workflows::WorkflowRunner::Outcome>(),
              workflows::WorkflowRunner::Outcome::Succeeded)
        << dialog->progressView()->output()->toPlainText().toStdString();
    dialog->progressView()->cancelButton()->click();
    ASSERT_TRUE(waitUntil([&] { return window->workflowDialog() == nullptr; }, 5s));
    bar->refresh();
    EXPECT_FALSE(bar->unfinishedLabel()->isVisible());

    // A revert whose restart fails: the decode refuses to start without it.
    const QString script = demoDir + QStringLiteral("/serve_decode.sh");
    QByteArray original;
    ASSERT_NO_FATAL_FAILURE(demo.planAFailingRevert(&original, &dialog));
    finished.clear();
    dialog->planView()->runButton()->click();
    ASSERT_TRUE(finished.wait(120000) || !finished.isEmpty());
    EXPECT_EQ(finished.first().at(0).value<workflows::WorkflowRunner::Outcome>(),
              workflows::WorkflowRunner::Outcome::Failed);
    EXPECT_NE(test::readFile(script), original);
    WorkflowProgressView *progress = dialog->progressView();
    ASSERT_TRUE(progress->rollbackButton()->isVisible());
    keepScreenshot(dialog, QStringLiteral("workflow-10-failed-revert"));

    progress->rollbackButton()->click();
    WorkflowPlanView *plan = dialog->planView();
    ASSERT_TRUE(waitUntil(
        [&] { return plan->plan() && plan->plan()->kind == workflows::WorkflowKind::RestoreKnob; },
        10s))
        << plan->planText()->toPlainText().toStdString();
    EXPECT_TRUE(plan->planText()->toPlainText().contains(QStringLiteral("serve_decode.sh")));
    keepScreenshot(dialog, QStringLiteral("workflow-11-roll-back-plan"));
    plan->confirmEdit()->setText(QStringLiteral("demo"));
    ASSERT_TRUE(plan->runButton()->isEnabled()) << plan->guardLabel()->text().toStdString();
    finished.clear();
    plan->runButton()->click();
    ASSERT_TRUE(finished.wait(120000) || !finished.isEmpty());
    EXPECT_EQ(finished.first().at(0).value<workflows::WorkflowRunner::Outcome>(),
              workflows::WorkflowRunner::Outcome::Succeeded)
        << progress->output()->toPlainText().toStdString();
    EXPECT_EQ(test::readFile(script), original) << "the backup is back, byte for byte";
}

// With auto_rollback on, a cancel (the window's Cancel, the CLI's SIGTERM)
// that comes after the failed revert ended but before its automatic rollback
// began is kept: the rollback is not begun, said, and the script keeps the
// failed run's edit for the operator to decide.
TEST(WorkflowWindow, ACancelBeforeTheAutomaticRollbackBeginsIsNotLost)
{
    DemoWindow demo;
    ASSERT_TRUE(demo.start()) << "the demo did not start";
    MainWindow *window = demo.window.get();
    workflows::WorkflowSession *session = window->session()->workflows();
    auto context = session->context();
    context.autoRollback = true;
    session->setContext(context);
    const QString script = demo.dir.path() + QStringLiteral("/demo/serve_decode.sh");
    // The moment between the two: the rollback is announced, not yet begun.
    QObject::connect(session, &workflows::WorkflowSession::rollingBack, session,
                     [session] { session->cancel(); });
    QSignalSpy started(session, &workflows::WorkflowSession::started);
    QSignalSpy finished(session, &workflows::WorkflowSession::finished);
    QSignalSpy refused(session, &workflows::WorkflowSession::refused);

    QByteArray original;
    WorkflowDialog *dialog = nullptr;
    ASSERT_NO_FATAL_FAILURE(demo.planAFailingRevert(&original, &dialog));
    dialog->planView()->runButton()->click();
    ASSERT_TRUE(finished.wait(120000) || !finished.isEmpty());
    EXPECT_EQ(finished.first().at(0).value<workflows::WorkflowRunner::Outcome>(),
              workflows::WorkflowRunner::Outcome::Failed);
    ASSERT_TRUE(waitUntil([&] { return !refused.isEmpty(); }, 10s));
    EXPECT_TRUE(
        refused.first().at(0).toString().contains(QStringLiteral("cancelled before it began")))
        << refused.first().at(0).toString().toStdString();
    EXPECT_EQ(started.size(), 1) << "no rollback was started";
    EXPECT_FALSE(session->running());
    EXPECT_NE(test::readFile(script), original) << "the failed run's edit stays, for the operator";
}
