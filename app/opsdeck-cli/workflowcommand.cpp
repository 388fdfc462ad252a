#include "workflowcommand.h"

#include "apppaths.h"
#include "auditkey.h"
#include "auditlog.h"
#include "cancelonsignal.h"
#include "cliinventory.h"
#include "clioutput.h"
#include "historystore.h"
#include "hostfiles.h"
#include "knobfiles.h"
#include "numberoption.h"
#include "probeengine.h"
#include "shellquote.h"
#include "workflowjournal.h"
#include "workflowsession.h"

#include <QDateTime>
#include <QEventLoop>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>
#include <cmath>
#include <cstdio>

using namespace Qt::StringLiterals;

namespace opsdeck::cli {

namespace {

using workflows::editsKnobs;
using workflows::WorkflowJournal;
using workflows::WorkflowPlan;
using workflows::WorkflowRunner;
using workflows::WorkflowSession;

void addPlanOptions(QCommandLineParser &parser)
{
    parser.addOption({u"inventory"_s, u"Inventory file (YAML)."_s, u"FILE"_s});
    parser.addOption({u"cluster"_s, u"The cluster."_s, u"NAME"_s});
    parser.addOption(
        {u"service"_s,
         u"restart: the service to restart; revert-knob / restore-knob: only this service's script."_s,
         u"NAME"_s});
    parser.addOption(
        {u"knob"_s,
         u"revert-knob / restore-knob: KEY or KEY=VALUE (an environment variable), or a launch flag with its dashes after the =."_s,
         u"KNOB"_s});
    parser.addOption({u"backup"_s,
                      u"revert-knob / restore-knob: take the value from this "
                      "backup."_s,
                      u"PATH"_s});
    parser.addOption({u"confirm"_s, u"run / resume: the name of the target, typed."_s, u"NAME"_s});
    parser.addOption({u"reason"_s, u"run / resume: why (required for production)."_s, u"TEXT"_s});
    parser.addOption({u"despite-evidence"_s,
                      u"run / resume: go ahead although the evidence points elsewhere."_s});
    parser.addOption({u"id"_s,
                      u"resume / abandon: the workflow's id (default: the newest "
                      "unfinished one)."_s,
                      u"ID"_s});
    parser.addOption({u"idle-gap"_s,
                      u"run / resume: seconds the verification's keep-alive stage idles (default "
                      "10, 0..600)."_s,
                      u"s"_s});
    parser.addOption({u"failure-watch"_s,
                      u"co-restart (and a knob workflow that co-restarts): seconds the engines' "
                      "bootstrap and transfer failure counters are watched after it (default 30, "
                      "0..600; 0: not watched)."_s,
                      u"s"_s});
    parser.addOption({u"drain"_s,
                      u"restart / co-restart: each prefill and decode is first removed from the "
                      "cluster's router and its running requests waited down to 0 (at most "
                      "--drain-timeout s, then it stops anyway), and added back once it answers "
                      "again."_s});
    parser.addOption({u"drain-timeout"_s,
                      u"with --drain: seconds the running requests are waited for (default 120, "
                      "1..3600)."_s,
                      u"s"_s});
    parser.addOption({u"auto-rollback"_s,
                      u"run / resume: a revert-knob or restore-knob that fails after its edit is "
                      "rolled back at once by restore-knob from its backups (also the settings' "
                      "[workflows] auto_rollback=true)."_s});
    addTunnelOptions(parser); // --ssh-config, --known-hosts: for ssh hosts
    parser.addOption(jsonOption());
    parser.addOption(dataDirOption());
}

QString dataDirOf(const QCommandLineParser &parser)
{
    return settings::AppPaths::dataDir(parser.value(u"data-dir"_s));
}

std::optional<workflows::WorkflowKind> kindOrSay(const QString &kindName)
{
    const auto kind = workflows::workflowKindFromName(kindName);
    if (!kind)
        printError(
            u"unknown workflow '%1': one of %2"_s.arg(kindName, workflows::workflowKindNames()));
    return kind;
}

// The hosts' transports, made when a step first needs one.
class Hosts
{
public:
    Hosts(const inventory::Inventory &inventory, const QCommandLineParser &parser)
        : m_inventory(inventory), m_parser(parser)
    {
    }
    remote::Transport *transportFor(const QString &host)
    {
        auto found = m_hosts.find(host);
        if (found == m_hosts.end()) {
            auto files = HostFiles::of(m_inventory, host, m_parser);
            if (!files)
                return nullptr;
            found = m_hosts.insert(host, std::make_shared<HostFiles>(std::move(*files)));
        }
        return found.value()->transport.get();
    }
    remote::RemoteFiles *filesFor(const QString &host)
    {
        return transportFor(host) ? m_hosts.value(host)->files.get() : nullptr;
    }
    knobs::KnobFiles *knobFilesFor(const QString &host)
    {
        if (!m_knobFiles.contains(host)) {
            remote::RemoteFiles *files = filesFor(host);
            if (!files)
                return nullptr;
            m_knobFiles.insert(host, std::make_shared<knobs::KnobFiles>(files, transportFor(host)));
        }
        return m_knobFiles.value(host).get();
    }

private:
    const inventory::Inventory &m_inventory;
    const QCommandLineParser &m_parser;
    QHash<QString, std::shared_ptr<HostFiles>> m_hosts;
    QHash<QString, std::shared_ptr<knobs::KnobFiles>> m_knobFiles; ///< destroyed first
};

// What one `workflow` command needs: the inventory's hosts, the HTTP engine
// and the session that plans, guards and runs (the window's own).
struct Workflows
{
    Workflows(const inventory::Inventory &inventory, const QCommandLineParser &parser)
        : hosts(inventory, parser)
    {
        WorkflowSession::Context context;
        context.runner.inventory = inventory;
        context.runner.transportFor = [this](const QString &host) {
            return hosts.transportFor(host);
        };
        context.runner.filesFor = [this](const QString &host) { return hosts.filesFor(host); };
        context.knobFilesFor = [this](const QString &host) { return hosts.knobFilesFor(host); };
        context.dataDir = dataDirOf(parser);
        const QString database = history::HistoryStore::pathIn(context.dataDir);
        context.runner.marker = [database](const history::Marker &marker, QString *error) {
            return history::HistoryStore::addMarkerTo(database, marker, error);
        };
        context.runner.engine = &engine;
        // The idle gap was checked before anything began.
        context.runner.verification.keepAliveIdleGapS =
            secondsOption(parser, u"idle-gap"_s, 0, 600,
                          context.runner.verification.keepAliveIdleGapS)
                .value_or(context.runner.verification.keepAliveIdleGapS);
        // Whole seconds, rounded up: 0.5 s still watches (0 alone leaves it out).
        context.timings.failureWatchS = static_cast<int>(std::ceil(
            secondsOption(parser, u"failure-watch"_s, 0, 600, context.timings.failureWatchS)
                .value_or(context.timings.failureWatchS)));
        const auto log = history::AuditKey::inDataDir(parser.value(u"data-dir"_s));
        context.runner.audit = [log](const history::AuditEntry &entry,
                                     std::function<void(bool, QString)> done) {
            QString error;
            const bool ok = log->append(entry, &error);
            done(ok, error);
        };
        context.timings.drainS = static_cast<int>(
            std::ceil(secondsOption(parser, u"drain-timeout"_s, 1, 3600, context.timings.drainS)
                          .value_or(context.timings.drainS)));
        context.autoRollback =
            parser.isSet(u"auto-rollback"_s) || WorkflowSession::autoRollbackSetting();
        session.setContext(std::move(context));
    }

    Hosts hosts;
    probes::ProbeEngine engine;
    WorkflowSession session;
};

// Plans `request` through the session; prints why not.
std::optional<WorkflowPlan> planOrSay(WorkflowSession &session,
                                      const WorkflowSession::Request &request)
{
    if (request.cluster.isEmpty()) {
        printError(u"--cluster NAME is required"_s);
        return std::nullopt;
    }
    std::optional<WorkflowPlan> plan;
    QString error = u"no answer from the hosts"_s;
    QEventLoop loop;
    QTimer::singleShot(std::chrono::minutes(2), &loop, &QEventLoop::quit);
    const QMetaObject::Connection planned =
        QObject::connect(&session, &WorkflowSession::planned, [&](const WorkflowPlan &p) {
            plan = p;
            error.clear();
            loop.quit();
        });
    const QMetaObject::Connection failed =
        QObject::connect(&session, &WorkflowSession::planFailed, [&](const QString &why) {
            error = why;
            loop.quit();
        });
    session.plan(request);
    if (!plan && error == u"no answer from the hosts")
        loop.exec();
    QObject::disconnect(planned);
    QObject::disconnect(failed);
    if (!plan)
        printError(error);
    return plan;
}

// Starts a workflow with `begin` (run or resume) and prints it until it
// ends; the exit code. A refusal before the first step is bad input.
int runAndReport(const inventory::Inventory &inventory, Workflows &workflows,
                 const std::function<void()> &begin, const QCommandLineParser &parser)
{
    WorkflowSession &session = workflows.session;
    const bool json = parser.isSet(u"json"_s);
    QJsonArray steps;
    QHash<int, QString> backups; // edit step -> the backup it made
    std::optional<WorkflowPlan> plan;
    std::optional<WorkflowRunner::Outcome> outcome;
    QString detail;
    QString id;
    QString refusal;
    // An automatic rollback: the failed workflow's end, kept while its
    // rollback runs (then outcome, detail, id and steps are the rollback's).
    struct Failed
    {
        WorkflowRunner::Outcome outcome;
        QString detail;
        QString id;
        QJsonArray steps;
        WorkflowPlan plan;
    };
    std::optional<Failed> rolledBack;
    bool rollingBack = false;
    QEventLoop loop;
    QObject context;
    QObject::connect(&session, &WorkflowSession::started, &context,
                     [&](const QString &started, const WorkflowPlan &p, int) {
                         id = started;
                         plan = p;
                     });
    QObject::connect(&session, &WorkflowSession::refused, &context, [&](const QString &why) {
        refusal = why;
        loop.quit();
    });
    QObject::connect(&session, &WorkflowSession::stepStarted, &context,
                     [json](int n, const QString &title) {
                         if (!json)
                             printLine(u"%1. %2 ..."_s.arg(n).arg(title));
                     });
    QObject::connect(&session, &WorkflowSession::stepOutput, &context,
                     [json](int n, const QString &line) {
                         if (!json)
                             printLine(u"   %1| %2"_s.arg(n).arg(line));
                     });
    QObject::connect(&session, &WorkflowSession::stepFinished, &context,
                     [&](int n, bool ok, const QString &stepDetail, qint64 ms) {
                         if (ok && stepDetail.startsWith(u"backup "_s))
                             backups.insert(n, stepDetail.mid(7).section(u" (sha256"_s, 0, 0));
                         steps.append(QJsonObject{
                             {u"n"_s, n}, {u"ok"_s, ok}, {u"detail"_s, stepDetail}, {u"ms"_s, ms}});
                         if (!json)
                             printLine(u"%1. %2 in %3 s: %4"_s.arg(n)
                                           .arg(ok ? u"ok"_s : u"FAILED"_s)
                                           .arg(double(ms) / 1000.0, 0, 'f', 1)
                                           .arg(stepDetail));
                     });
    QObject::connect(&session, &WorkflowSession::rollingBack, &context,
                     [&](const QString &) { rollingBack = true; });
    QObject::connect(
        &session, &WorkflowSession::finished, &context,
        [&](WorkflowRunner::Outcome o, const QString &d, const QString &) {
            if (rollingBack && !rolledBack) {
                rolledBack = Failed{o, d, id, steps, *plan};
                steps = {};
                if (!json)
                    printLine(
                        u"workflow %1 %2: %3\nrolling back automatically (auto_rollback): "
                        "restore-knob %4 from its backups"_s.arg(
                            id, WorkflowRunner::outcomeName(o), d, plan->knob.section(u'=', 0, 0)));
                return;
            }
            outcome = o;
            detail = d;
            loop.quit();
        });
    {
        // Ctrl-C, SIGTERM, SIGHUP: the running step is cancelled and journaled.
        threads::CancelOnSignal onSignal([&session] {
            QMetaObject::invokeMethod(
                &session, [&session] { session.cancel(); }, Qt::QueuedConnection);
        });
        begin();
        if (!outcome && refusal.isEmpty())
            loop.exec();
    }
    if (rolledBack) {
        // The failed workflow is what this command ran: its outcome, its
        // exit code; the rollback is said beside it.
        const QString rollback =
            outcome ? u"rollback %1 %2: %3"_s.arg(id, WorkflowRunner::outcomeName(*outcome), detail)
                    : u"the rollback did not run: "_s + refusal;
        const QJsonObject rollbackJson =
            outcome ? QJsonObject{{u"id"_s, id},
                                  {u"outcome"_s, WorkflowRunner::outcomeName(*outcome)},
                                  {u"detail"_s, detail},
                                  {u"steps"_s, steps}}
                    : QJsonObject{{u"refused"_s, refusal}};
        const bool restored = outcome == WorkflowRunner::Outcome::Succeeded;
        if (json) {
            printJson(QJsonDocument(
                QJsonObject{{u"id"_s, rolledBack->id},
                            {u"kind"_s, workflows::workflowKindName(rolledBack->plan.kind)},
                            {u"cluster"_s, rolledBack->plan.cluster},
                            {u"service"_s, rolledBack->plan.service},
                            {u"outcome"_s, WorkflowRunner::outcomeName(rolledBack->outcome)},
                            {u"detail"_s, rolledBack->detail},
                            {u"steps"_s, rolledBack->steps},
                            {u"rollback"_s, rollbackJson}}));
        } else {
            printLine(rollback);
            if (!restored)
                printLine(u"the script may still hold the failed workflow's edit: see `opsdeck-cli "
                          "workflow list` and the backups named above"_s);
        }
        return ExitFailed;
    }
    if (!outcome) {
        printError(u"refused: "_s + refusal);
        return ExitBadInput;
    }
    const QString said = WorkflowRunner::outcomeName(*outcome);
    if (json) {
        printJson(QJsonDocument(QJsonObject{{u"id"_s, id},
                                            {u"kind"_s, workflows::workflowKindName(plan->kind)},
                                            {u"cluster"_s, plan->cluster},
                                            {u"service"_s, plan->service},
                                            {u"outcome"_s, said},
                                            {u"detail"_s, detail},
                                            {u"steps"_s, steps}}));
    } else {
        printLine(u"workflow %1 %2: %3"_s.arg(id, said, detail));
        // The commands as they can be pasted: this inventory and data dir.
        const QString where = u"--inventory %1%2"_s.arg(
            shell::singleQuoted(inventory.path),
            parser.isSet(u"data-dir"_s)
                ? u" --data-dir "_s + shell::singleQuoted(parser.value(u"data-dir"_s))
                : QString());
        if (*outcome != WorkflowRunner::Outcome::Succeeded)
            printLine(
                plan->knobEdits.isEmpty()
                    ? u"nothing was rolled back: see `opsdeck-cli workflow list`; "
                      "`opsdeck-cli workflow resume --id %1 %3 --confirm %2` runs it again "
                      "from the step that did not end well, `opsdeck-cli workflow abandon "
                      "--id %1 %3` ends it"_s.arg(id, plan->confirmationTarget(), where)
                    : u"nothing was rolled back; `opsdeck-cli workflow abandon --id %1 %2` "
                      "ends it (a workflow that edits a script is not resumed)"_s.arg(id, where));
        // A script this workflow changed: its backup is the way back, as a
        // restore-knob workflow (planned, guarded, verified like this one).
        if (*outcome != WorkflowRunner::Outcome::Succeeded) {
            for (const WorkflowPlan::KnobEdit &edit : plan->knobEdits) {
                const QString backup = backups.value(edit.n);
                if (backup.isEmpty())
                    continue;
                printLine(u"to roll back %1: opsdeck-cli workflow run restore-knob %2 "
                          "--cluster %3 --service %4 --knob=%5 --backup %6 --confirm %4"_s.arg(
                              edit.plan.path, where, plan->cluster, edit.service,
                              shell::singleQuoted(plan->knob.section(u'=', 0, 0)),
                              shell::singleQuoted(backup)));
            }
        }
    }
    switch (*outcome) {
    case WorkflowRunner::Outcome::Succeeded:
        return ExitOk;
    case WorkflowRunner::Outcome::Failed:
        return ExitFailed;
    case WorkflowRunner::Outcome::Cancelled:
        return ExitUnknown;
    }
    return ExitFailed;
}

workflows::Confirmation confirmationOf(const QCommandLineParser &parser)
{
    return {parser.value(u"confirm"_s), parser.value(u"reason"_s),
            parser.isSet(u"despite-evidence"_s)};
}

int plan(const QCommandLineParser &parser, bool run)
{
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 2) {
        printError(u"workflow %1 needs the workflow's kind: one of %2"_s.arg(
            positional.value(0), workflows::workflowKindNames()));
        return ExitBadInput;
    }
    if (!parser.isSet(u"inventory"_s)) {
        printError(u"--inventory FILE is required"_s);
        return ExitBadInput;
    }
    const auto inventory = loadInventoryOrSay(parser.value(u"inventory"_s));
    if (!inventory)
        return ExitBadInput;
    const auto kind = kindOrSay(positional.at(1));
    if (!kind)
        return ExitBadInput;
    if (!editsKnobs(*kind) && (parser.isSet(u"knob"_s) || parser.isSet(u"backup"_s))) {
        printError(u"%1 edits no knob: --knob and --backup belong to revert-knob and "
                   "restore-knob"_s.arg(positional.at(1)));
        return ExitBadInput;
    }
    if (editsKnobs(*kind) && !parser.isSet(u"knob"_s)) {
        printError(u"%1 needs --knob KEY (or KEY=VALUE)"_s.arg(positional.at(1)));
        return ExitBadInput;
    }
    Workflows workflows(*inventory, parser);
    // The scripts are read and each edit planned first: the plan shows the diffs.
    const auto plan = planOrSay(workflows.session, {*kind,
                                                    parser.value(u"cluster"_s),
                                                    parser.value(u"service"_s),
                                                    parser.value(u"knob"_s),
                                                    parser.value(u"backup"_s),
                                                    {},
                                                    parser.isSet(u"drain"_s)});
    if (!plan)
        return ExitBadInput;
    if (!run) {
        if (parser.isSet(u"json"_s))
            printJson(QJsonDocument(plan->json()));
        else
            std::fputs(plan->text().toUtf8().constData(), stdout);
        return ExitOk;
    }
    if (!parser.isSet(u"json"_s))
        std::fputs(plan->text().toUtf8().constData(), stdout);
    return runAndReport(
        *inventory, workflows, [&] { workflows.session.run(*plan, confirmationOf(parser)); },
        parser);
}

int list(const QCommandLineParser &parser)
{
    QStringList problems;
    const QVector<WorkflowJournal::Summary> journals =
        WorkflowJournal::list(dataDirOf(parser), &problems);
    for (const QString &problem : problems)
        printError(problem);
    if (parser.isSet(u"json"_s)) {
        QJsonArray array;
        for (const auto &j : journals)
            array.append(QJsonObject{{u"id"_s, j.id},
                                     {u"kind"_s, j.plan.value(u"kind"_s)},
                                     {u"cluster"_s, j.plan.value(u"cluster"_s)},
                                     {u"service"_s, j.plan.value(u"service"_s)},
                                     {u"inventory"_s, j.inventory},
                                     {u"started"_s, j.started.toString(Qt::ISODateWithMs)},
                                     {u"finished"_s, j.finished},
                                     {u"outcome"_s, j.outcome},
                                     {u"detail"_s, j.detail},
                                     {u"last_started"_s, j.lastStarted},
                                     {u"last_ended"_s, j.lastEnded},
                                     {u"resume_from"_s, j.finished ? 0 : j.resumeFrom()}});
        printJson(QJsonDocument(array));
        return problems.isEmpty() ? ExitOk : ExitBadInput;
    }
    for (const auto &j : journals) {
        const QString state =
            j.finished ? j.outcome
                       : u"UNFINISHED: stopped at step %1 of %2 (resume runs step %3 again)"_s
                             .arg(j.lastStarted)
                             .arg(j.plan.value(u"steps"_s).toArray().size())
                             .arg(j.resumeFrom());
        printLine(u"%1  %2 %3  %4"_s.arg(j.id, j.plan.value(u"kind"_s).toString(),
                                         j.plan.value(u"service"_s).toString().isEmpty()
                                             ? j.plan.value(u"cluster"_s).toString()
                                             : j.plan.value(u"service"_s).toString(),
                                         state));
    }
    // The readable ones are listed; an unreadable journal is bad input.
    return problems.isEmpty() ? ExitOk : ExitBadInput;
}

// resume / abandon: the unfinished workflow of the journal.
int resumeOrAbandon(const QCommandLineParser &parser, bool resume)
{
    if (!parser.isSet(u"inventory"_s)) {
        printError(u"--inventory FILE is required"_s);
        return ExitBadInput;
    }
    const auto inventory = loadInventoryOrSay(parser.value(u"inventory"_s));
    if (!inventory)
        return ExitBadInput;
    Workflows workflows(*inventory, parser);
    WorkflowSession &session = workflows.session;
    if (resume)
        return runAndReport(
            *inventory, workflows,
            [&] { session.resume(parser.value(u"id"_s), confirmationOf(parser)); }, parser);
    QString refusal;
    std::optional<int> atStep;
    QString id;
    QEventLoop loop;
    QObject context;
    QObject::connect(&session, &WorkflowSession::refused, &context, [&](const QString &why) {
        // A lock that could not be released is said, the abandon stands.
        refusal = why;
        if (!atStep)
            loop.quit();
    });
    QObject::connect(&session, &WorkflowSession::abandoned, &context,
                     [&](const QString &abandonedId, int step) {
                         id = abandonedId;
                         atStep = step;
                         refusal.clear();
                         loop.quit();
                     });
    session.abandon(parser.value(u"id"_s));
    if (!atStep && refusal.isEmpty())
        loop.exec();
    if (!atStep) {
        printError(refusal);
        return ExitBadInput;
    }
    printLine(u"workflow %1 abandoned at step %2"_s.arg(id).arg(*atStep));
    return ExitOk;
}

} // namespace

int runWorkflow(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Plan, run, resume, abandon or list guarded workflows: restart, co-restart, "
        "restart-proxy, revert-knob, restore-knob."_s);
    addPlanOptions(parser);
    parser.addPositionalArgument(u"action"_s, u"plan, run, resume, abandon or list"_s);
    parser.addPositionalArgument(u"kind"_s, u"plan / run: "_s + workflows::workflowKindNames());
    if (!parseArguments(parser, arguments))
        return ExitBadInput;
    // Checked before any journal is begun.
    if (!secondsOption(parser, u"idle-gap"_s, 0, 600, 10) ||
        !secondsOption(parser, u"failure-watch"_s, 0, 600, 30) ||
        !secondsOption(parser, u"drain-timeout"_s, 1, 3600, 120))
        return ExitBadInput;
    // A name typed twice is not a confirmation of either.
    for (const QString &once : {u"confirm"_s, u"reason"_s, u"cluster"_s, u"service"_s, u"knob"_s,
                                u"backup"_s, u"inventory"_s, u"id"_s}) {
        if (parser.values(once).size() > 1) {
            printError(
                u"--%1 given %2 times: give it once"_s.arg(once).arg(parser.values(once).size()));
            return ExitBadInput;
        }
    }
    const QString action = parser.positionalArguments().value(0);
    if (action == u"plan" || action == u"run")
        return plan(parser, action == u"run");
    if (parser.positionalArguments().size() > 1) {
        printError(u"workflow %1 takes no kind (got '%2')"_s.arg(
            action, parser.positionalArguments().at(1)));
        return ExitBadInput;
    }
    if (action == u"list")
        return list(parser);
    if (action == u"resume" || action == u"abandon")
        return resumeOrAbandon(parser, action == u"resume");
    printError(u"workflow needs an action: plan, run, resume, abandon or list"_s);
    return ExitBadInput;
}

} // namespace opsdeck::cli
