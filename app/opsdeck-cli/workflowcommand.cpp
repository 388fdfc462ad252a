#include "workflowcommand.h"

#include "apppaths.h"
#include "auditkey.h"
#include "auditlog.h"
#include "awaitanswer.h"
#include "cancelonsignal.h"
#include "cliinventory.h"
#include "clioutput.h"
#include "clusterlock.h"
#include "evidenceguard.h"
#include "historystore.h"
#include "hostfiles.h"
#include "knobfiles.h"
#include "numberoption.h"
#include "probeengine.h"
#include "runbookplanner.h"
#include "transport.h"
#include "workflowguard.h"
#include "workflowjournal.h"
#include "workflowknobs.h"
#include "workflowrunner.h"

#include <QDateTime>
#include <QEventLoop>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSysInfo>
#include <cstdio>

using namespace Qt::StringLiterals;

namespace opsdeck::cli {

namespace {

using workflows::RunbookPlanner;
using workflows::WorkflowJournal;
using workflows::WorkflowPlan;
using workflows::WorkflowRunner;

// Long enough for a co-restart of engines that load for many minutes; a lock
// older than this is shown as stale, and broken only by `lock break`.
constexpr std::chrono::hours kLockValidity(4);

void addPlanOptions(QCommandLineParser &parser)
{
    parser.addOption({u"inventory"_s, u"Inventory file (YAML)."_s, u"FILE"_s});
    parser.addOption({u"cluster"_s, u"The cluster."_s, u"NAME"_s});
    parser.addOption({u"service"_s, u"restart: the service to restart."_s, u"NAME"_s});
    parser.addOption({u"knob"_s, u"revert-knob / restore-knob: KEY or KEY=VALUE."_s, u"KNOB"_s});
    parser.addOption({u"backup"_s,
                      u"revert-knob / restore-knob: take the value from this "
                      "backup."_s,
                      u"PATH"_s});
    parser.addOption({u"confirm"_s, u"run: the name of the target, typed."_s, u"NAME"_s});
    parser.addOption({u"reason"_s, u"run: why (required for production)."_s, u"TEXT"_s});
    parser.addOption(
        {u"despite-evidence"_s, u"run: go ahead although the evidence points elsewhere."_s});
    parser.addOption({u"id"_s,
                      u"resume / abandon: the workflow's id (default: the newest "
                      "unfinished one)."_s,
                      u"ID"_s});
    parser.addOption({u"idle-gap"_s,
                      u"run / resume: seconds the verification's keep-alive stage idles (default "
                      "10, 0..600)."_s,
                      u"s"_s});
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

std::optional<WorkflowPlan> planFrom(const inventory::Inventory &inventory,
                                     workflows::WorkflowKind kind, const QString &cluster,
                                     const QString &service, const QString &knob,
                                     const QString &backup,
                                     const QVector<WorkflowPlan::KnobEdit> &edits = {})
{
    if (cluster.isEmpty()) {
        printError(u"--cluster NAME is required"_s);
        return std::nullopt;
    }
    QString error;
    auto plan =
        RunbookPlanner::plan(inventory, {kind, cluster, service, knob, backup, edits}, &error);
    if (!plan)
        printError(error);
    return plan;
}

bool editsKnobs(workflows::WorkflowKind kind)
{
    return kind == workflows::WorkflowKind::RevertKnob ||
           kind == workflows::WorkflowKind::RestoreKnob;
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

// Takes the cluster's lock for workflow `id` on its host; the lock to release
// at the end, or nothing (why said: another workflow holds it).
std::unique_ptr<workflows::ClusterLock> takeLock(const inventory::Inventory &inventory,
                                                 Hosts &hosts, const QString &cluster,
                                                 const QString &id)
{
    QString host;
    QString error;
    const QString path = workflows::ClusterLock::pathFor(inventory, cluster, &host, &error);
    if (path.isEmpty()) {
        printError(u"refused: "_s + error);
        return nullptr;
    }
    remote::Transport *transport = hosts.transportFor(host);
    if (!transport) {
        printError(u"refused: host %1 cannot be reached to take the cluster lock"_s.arg(host));
        return nullptr;
    }
    auto lock = std::make_unique<workflows::ClusterLock>(transport, path);
    const workflows::ClusterLock::Holder me{
        history::AuditLog::currentUser(), QSysInfo::machineHostName(), {}, {}, id};
    const auto taken = awaitAnswer<workflows::ClusterLock::Result>(
        [&](auto done) { lock->take(me, kLockValidity, std::move(done)); });
    if (!taken || !taken->ok) {
        printError(u"refused: "_s + (taken ? taken->error : u"no answer from host %1"_s.arg(host)) +
                   u" (nothing was run; `opsdeck-cli lock status` shows it)"_s);
        return nullptr;
    }
    return lock;
}

void releaseLock(workflows::ClusterLock &lock, const QString &id)
{
    const auto released = awaitAnswer<workflows::ClusterLock::Result>(
        [&](auto done) { lock.release(id, std::move(done)); });
    if (!released || !released->ok)
        printError(released ? released->error : u"the cluster lock was not released"_s);
}

// Runs `plan` headless from step `from`; prints each step; the exit code.
int runPlan(const inventory::Inventory &inventory, Hosts &hosts, const WorkflowPlan &plan,
            WorkflowJournal journal, const workflows::Confirmation &confirmation, int from,
            const QCommandLineParser &parser)
{
    const bool json = parser.isSet(u"json"_s);
    const auto log = history::AuditKey::inDataDir(parser.value(u"data-dir"_s));
    probes::ProbeEngine engine;
    WorkflowRunner::Context context;
    context.inventory = inventory;
    context.transportFor = [&hosts](const QString &host) { return hosts.transportFor(host); };
    context.filesFor = [&hosts](const QString &host) { return hosts.filesFor(host); };
    const QString database = history::HistoryStore::pathIn(dataDirOf(parser));
    context.marker = [database](const history::Marker &marker, QString *error) {
        return history::HistoryStore::addMarkerTo(database, marker, error);
    };
    context.engine = &engine;
    // The operator confirmed the whole plan, its verification's load included.
    context.verification.batch.confirmation = plan.cluster;
    const std::optional<double> idleGapS =
        secondsOption(parser, u"idle-gap"_s, 0, 600, context.verification.keepAliveIdleGapS);
    if (!idleGapS)
        return ExitBadInput;
    context.verification.keepAliveIdleGapS = *idleGapS;
    context.audit = [log](const history::AuditEntry &entry,
                          std::function<void(bool, QString)> done) {
        QString error;
        const bool ok = log->append(entry, &error);
        done(ok, error);
    };
    WorkflowRunner runner(context);
    QJsonArray steps;
    QObject::connect(&runner, &WorkflowRunner::stepStarted, [json](int n, const QString &title) {
        if (!json)
            printLine(u"%1. %2 ..."_s.arg(n).arg(title));
    });
    QObject::connect(&runner, &WorkflowRunner::stepOutput, [json](int n, const QString &line) {
        if (!json)
            printLine(u"   %1| %2"_s.arg(n).arg(line));
    });
    QHash<int, QString> backups; // edit step -> the backup it made
    QObject::connect(&runner, &WorkflowRunner::stepFinished,
                     [&backups](int n, bool ok, const QString &detail, qint64) {
                         if (ok && detail.startsWith(u"backup "_s))
                             backups.insert(n, detail.mid(7).section(u" (sha256"_s, 0, 0));
                     });
    QObject::connect(&runner, &WorkflowRunner::stepFinished,
                     [json, &steps](int n, bool ok, const QString &detail, qint64 ms) {
                         steps.append(QJsonObject{
                             {u"n"_s, n}, {u"ok"_s, ok}, {u"detail"_s, detail}, {u"ms"_s, ms}});
                         if (!json)
                             printLine(u"%1. %2 in %3 s: %4"_s.arg(n)
                                           .arg(ok ? u"ok"_s : u"FAILED"_s)
                                           .arg(double(ms) / 1000.0, 0, 'f', 1)
                                           .arg(detail));
                     });
    std::optional<WorkflowRunner::Outcome> outcome;
    QString detail;
    QEventLoop loop;
    QObject::connect(&runner, &WorkflowRunner::finished,
                     [&](WorkflowRunner::Outcome o, const QString &d) {
                         outcome = o;
                         detail = d;
                         loop.quit();
                     });
    const QString id = journal.id();
    {
        // Ctrl-C, SIGTERM, SIGHUP: the running step is cancelled and journaled.
        CancelOnSignal onSignal([&runner] {
            QMetaObject::invokeMethod(
                &runner, [&runner] { runner.cancel(); }, Qt::QueuedConnection);
        });
        runner.run(plan, std::move(journal), confirmation, from);
        if (!outcome)
            loop.exec();
    }
    const QString said = WorkflowRunner::outcomeName(*outcome);
    if (json) {
        printJson(QJsonDocument(QJsonObject{{u"id"_s, id},
                                            {u"kind"_s, workflows::workflowKindName(plan.kind)},
                                            {u"cluster"_s, plan.cluster},
                                            {u"service"_s, plan.service},
                                            {u"outcome"_s, said},
                                            {u"detail"_s, detail},
                                            {u"steps"_s, steps}}));
    } else {
        printLine(u"workflow %1 %2: %3"_s.arg(id, said, detail));
        if (*outcome != WorkflowRunner::Outcome::Succeeded)
            printLine(plan.knobEdits.isEmpty()
                          ? u"nothing was rolled back: see `opsdeck-cli workflow list`; `workflow "
                            "resume --id %1 --confirm %2` runs it again from the step that did not "
                            "end well, `workflow abandon --id %1` ends it"_s.arg(
                                id, plan.confirmationTarget())
                          : u"nothing was rolled back; `workflow abandon --id %1` ends it (a "
                            "workflow that edits a script is not resumed)"_s.arg(id));
        // A script this workflow changed: its backup is the way back.
        if (*outcome != WorkflowRunner::Outcome::Succeeded) {
            for (const WorkflowPlan::KnobEdit &edit : plan.knobEdits) {
                const QString backup = backups.value(edit.n);
                if (backup.isEmpty())
                    continue;
                const inventory::Service *service = inventory.service(edit.service);
                printLine(u"to roll back %1: opsdeck-cli knobs restore %1 %2 --host %3 --inventory "
                          "%4 --confirm %5, then restart %6"_s.arg(
                              edit.plan.path, backup, service ? service->host : QString(),
                              inventory.path, edit.service, edit.service));
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
    Hosts hosts(*inventory, parser);
    std::optional<QVector<WorkflowPlan::KnobEdit>> edits;
    if (editsKnobs(*kind)) {
        // Read and planned now: the plan shows each script's diff.
        edits =
            planKnobEdits(*inventory, *kind, parser.value(u"cluster"_s), parser.value(u"service"_s),
                          parser.value(u"knob"_s), parser.value(u"backup"_s), dataDirOf(parser),
                          [&hosts](const QString &host) { return hosts.knobFilesFor(host); });
        if (!edits)
            return ExitBadInput;
    }
    auto plan = planFrom(*inventory, *kind, parser.value(u"cluster"_s), parser.value(u"service"_s),
                         parser.value(u"knob"_s), parser.value(u"backup"_s),
                         edits.value_or(QVector<WorkflowPlan::KnobEdit>()));
    if (!plan)
        return ExitBadInput;
    // The evidence of this data dir's history: what diagnose, verify, the
    // watch and the window wrote there.
    workflows::EvidenceGuard::apply(
        *plan, *inventory,
        workflows::Evidence::read(history::HistoryStore::pathIn(dataDirOf(parser)), *inventory,
                                  plan->cluster, QDateTime::currentMSecsSinceEpoch()));
    if (!run) {
        if (parser.isSet(u"json"_s))
            printJson(QJsonDocument(plan->json()));
        else
            std::fputs(plan->text().toUtf8().constData(), stdout);
        return ExitOk;
    }
    const workflows::Confirmation confirmation{
        parser.value(u"confirm"_s), parser.value(u"reason"_s), parser.isSet(u"despite-evidence"_s)};
    if (const QString refused =
            workflows::WorkflowGuard::refusal(*plan, inventory->armed, confirmation);
        !refused.isEmpty()) {
        if (!parser.isSet(u"json"_s))
            std::fputs(plan->text().toUtf8().constData(), stdout);
        printError(u"refused: "_s + refused);
        return ExitBadInput;
    }
    if (!parser.isSet(u"json"_s))
        std::fputs(plan->text().toUtf8().constData(), stdout);
    // One workflow per cluster at a time, whoever runs it from wherever.
    const QString id = WorkflowJournal::newId(plan->kind);
    const auto lock = takeLock(*inventory, hosts, plan->cluster, id);
    if (!lock)
        return ExitBadInput;
    QString error;
    auto journal = WorkflowJournal::create(dataDirOf(parser), *plan, &error, id);
    if (!journal) {
        printError(error + u": nothing was run"_s);
        releaseLock(*lock, id);
        return ExitFailed;
    }
    const int code =
        runPlan(*inventory, hosts, *plan, std::move(*journal), confirmation, 1, parser);
    releaseLock(*lock, id);
    return code;
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
    QString error;
    const auto found = WorkflowJournal::find(dataDirOf(parser), parser.value(u"id"_s), &error);
    if (!found) {
        printError(error);
        return ExitBadInput;
    }
    if (!found->resumable()) {
        printError(u"workflow %1 already ended (%2): nothing to %3"_s.arg(
            found->id, found->outcome, resume ? u"resume"_s : u"abandon"_s));
        return ExitBadInput;
    }
    const auto inventory = loadInventoryOrSay(parser.value(u"inventory"_s));
    if (!inventory)
        return ExitBadInput;
    const QJsonObject &was = found->plan;
    const auto kind = kindOrSay(was.value(u"kind"_s).toString());
    if (!kind)
        return ExitBadInput;
    const QString cluster = was.value(u"cluster"_s).toString();
    auto journal = WorkflowJournal::reopen(*found);
    const auto log = history::AuditKey::inDataDir(parser.value(u"data-dir"_s));
    history::AuditEntry entry;
    entry.kind = u"workflow"_s;
    entry.host = cluster;
    if (!resume) {
        entry.action = u"abandoned"_s;
        entry.detail =
            u"workflow %1 (%2 of %3), stopped at step %4: abandoned, nothing more is "
            "run"_s.arg(found->id, was.value(u"kind"_s).toString(),
                        was.value(u"confirm"_s).toString(), QString::number(found->lastStarted));
        if (!log->append(entry, &error)) {
            printError(u"the audit entry could not be written (%1): nothing done"_s.arg(error));
            return ExitFailed;
        }
        if (!journal.append({{u"event"_s, u"end"_s},
                             {u"outcome"_s, u"abandoned"_s},
                             {u"detail"_s, u"abandoned at step %1"_s.arg(found->lastStarted)}},
                            &error)) {
            printError(error);
            return ExitFailed;
        }
        printLine(u"workflow %1 abandoned at step %2"_s.arg(found->id).arg(found->lastStarted));
        // The lock a killed run left, when it names this workflow.
        QString host;
        const QString path = workflows::ClusterLock::pathFor(*inventory, cluster, &host, &error);
        Hosts hosts(*inventory, parser);
        if (remote::Transport *transport = path.isEmpty() ? nullptr : hosts.transportFor(host)) {
            workflows::ClusterLock lock(transport, path);
            releaseLock(lock, found->id);
        }
        return ExitOk;
    }
    if (editsKnobs(*kind)) {
        printError(u"workflow %1 edits a serve script: it is not resumed (its edit was planned "
                   "against the script as it was). Check the script (`opsdeck-cli knobs backups`), "
                   "abandon it, then run restart or co-restart"_s.arg(found->id));
        return ExitBadInput;
    }
    auto plan = planFrom(*inventory, *kind, cluster, was.value(u"service"_s).toString(),
                         was.value(u"knob"_s).toString(), QString());
    if (!plan)
        return ExitBadInput;
    // The same steps, or the journal's step numbers mean nothing.
    if (plan->json().value(u"steps"_s) != was.value(u"steps"_s)) {
        printError(u"%1 no longer gives the plan workflow %2 ran (the inventory changed): "
                   "abandon it and plan again"_s.arg(inventory->path, found->id));
        return ExitBadInput;
    }
    // Every guard again, as for a new run: the inventory, the evidence and
    // who runs it may all have changed since.
    workflows::EvidenceGuard::apply(
        *plan, *inventory,
        workflows::Evidence::read(history::HistoryStore::pathIn(dataDirOf(parser)), *inventory,
                                  plan->cluster, QDateTime::currentMSecsSinceEpoch()));
    const workflows::Confirmation confirmation{
        parser.value(u"confirm"_s), parser.value(u"reason"_s), parser.isSet(u"despite-evidence"_s)};
    if (const QString refused =
            workflows::WorkflowGuard::refusal(*plan, inventory->armed, confirmation);
        !refused.isEmpty()) {
        printError(u"refused: "_s + refused);
        return ExitBadInput;
    }
    Hosts hosts(*inventory, parser);
    // Still ours when this workflow took it; else it must be free.
    const auto lock = takeLock(*inventory, hosts, plan->cluster, found->id);
    if (!lock)
        return ExitBadInput;
    entry.action = u"resume-chosen"_s;
    entry.detail = u"workflow %1 (%2 of %3), stopped at step %4: resumed from step %5"_s.arg(
        found->id, was.value(u"kind"_s).toString(), plan->confirmationTarget(),
        QString::number(found->lastStarted), QString::number(found->resumeFrom()));
    if (!log->append(entry, &error) ||
        !journal.append({{u"event"_s, u"resume"_s}, {u"from"_s, found->resumeFrom()}}, &error)) {
        printError(error + u": nothing was run"_s);
        releaseLock(*lock, found->id);
        return ExitFailed;
    }
    const int code = runPlan(*inventory, hosts, *plan, std::move(journal), confirmation,
                             found->resumeFrom(), parser);
    releaseLock(*lock, found->id);
    return code;
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
    if (!secondsOption(parser, u"idle-gap"_s, 0, 600, 10))
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
