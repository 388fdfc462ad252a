#include "workflowsession.h"

#include "apppaths.h"
#include "auditlog.h"
#include "checkhistory.h"
#include "clusterlock.h"
#include "evidence.h"
#include "evidenceguard.h"
#include "historystore.h"
#include "hostauditlog.h"
#include "knobeditplanner.h"
#include "settingsvalues.h"
#include "transport.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QSettings>
#include <QSysInfo>
#include <QTimer>
#include <spdlog/spdlog.h>
#include <utility>

using namespace Qt::StringLiterals;

namespace opsdeck::workflows {

namespace {

} // namespace

WorkflowSession::WorkflowSession(QObject *parent) : QObject(parent) {}

WorkflowSession::~WorkflowSession()
{
    releaseClaim();
}

bool WorkflowSession::autoRollbackSetting()
{
    const QSettings conf(settings::AppPaths::configFile(), QSettings::IniFormat);
    return settings::settingsBool(conf, u"workflows/auto_rollback"_s);
}

void WorkflowSession::setContext(Context context)
{
    const bool wasArmed = armed();
    m_context = std::move(context);
    m_armedForSession = false;
    ++m_planGeneration;
    if (wasArmed != armed())
        Q_EMIT armedChanged(armed());
}

void WorkflowSession::plan(const Request &request)
{
    const quint64 generation = ++m_planGeneration;
    const inventory::Inventory &inventory = m_context.runner.inventory;
    const auto planWith = [this, request,
                           generation](const QVector<WorkflowPlan::KnobEdit> &edits) {
        if (generation != m_planGeneration)
            return;
        QString error;
        auto plan = RunbookPlanner::plan(m_context.runner.inventory,
                                         {request.kind, request.cluster, request.service,
                                          request.knob, request.backup, edits, request.drain},
                                         &error, m_context.timings);
        if (!plan)
            return Q_EMIT planFailed(error);
        refreshEvidence(*plan);
        Q_EMIT planned(*plan);
    };
    if (request.cluster.isEmpty())
        return Q_EMIT planFailed(u"a workflow needs its cluster"_s);
    if (!editsKnobs(request.kind)) {
        if (!request.knob.isEmpty() || !request.backup.isEmpty())
            return Q_EMIT planFailed(
                u"%1 edits no knob: a knob and a backup belong to revert-knob and "
                "restore-knob"_s.arg(workflowKindName(request.kind)));
        return planWith({});
    }
    // The scripts are read and each edit planned first: the plan shows the diffs.
    KnobEditPlanner::plan(inventory,
                          {request.kind, request.cluster, request.service, request.knob,
                           request.backup, m_context.dataDir, request.undoing},
                          m_context.knobFilesFor,
                          [this, planWith, generation](const auto &edits, const QString &error) {
                              if (generation != m_planGeneration)
                                  return;
                              if (!edits)
                                  return Q_EMIT planFailed(error);
                              planWith(*edits);
                          });
}

void WorkflowSession::refreshEvidence(WorkflowPlan &plan) const
{
    // The evidence of this data dir's history: what diagnose, verify, the
    // watch and the window wrote there.
    EvidenceGuard::apply(plan, m_context.runner.inventory,
                         Evidence::read(history::HistoryStore::pathIn(m_context.dataDir),
                                        m_context.runner.inventory, plan.cluster,
                                        QDateTime::currentMSecsSinceEpoch()));
}

bool WorkflowSession::armed() const
{
    return m_context.runner.inventory.armed || m_armedForSession;
}

QString WorkflowSession::armingConfirmation() const
{
    return QFileInfo(m_context.runner.inventory.path).fileName();
}

void WorkflowSession::armForSession(const QString &typed)
{
    if (armed())
        return Q_EMIT armedChanged(true);
    if (m_context.runner.inventory.path.isEmpty())
        return refuse(u"no inventory is open"_s);
    if (typed != armingConfirmation())
        return refuse(u"type \"%1\" to arm it for this session; you typed \"%2\""_s.arg(
            armingConfirmation(), typed));
    history::AuditEntry entry;
    entry.kind = u"workflow"_s;
    entry.host = m_context.runner.inventory.path;
    entry.action = u"armed-for-session"_s;
    entry.detail =
        u"%1 armed for this session (the file says armed: false): workflows may "
        "restart and edit its services until it is closed"_s.arg(m_context.runner.inventory.path);
    const QString path = m_context.runner.inventory.path;
    audit(entry, [this, path](bool ok, const QString &error) {
        if (!ok)
            return refuse(u"not armed: the audit entry could not be written (%1)"_s.arg(error));
        if (m_context.runner.inventory.path != path)
            return; // another inventory since
        m_armedForSession = true;
        Q_EMIT armedChanged(true);
    });
}

QString WorkflowSession::refusal(const WorkflowPlan &plan, const Confirmation &confirmation) const
{
    return WorkflowGuard::refusal(plan, armed(), confirmation);
}

void WorkflowSession::audit(const history::AuditEntry &entry,
                            std::function<void(bool, QString)> done)
{
    if (!m_context.runner.audit)
        return done(false, u"no audit log"_s);
    m_context.runner.audit(entry, std::move(done));
}

void WorkflowSession::refuse(const QString &why)
{
    m_rollingBack = false;
    m_rollbackPending = false;
    m_cancelRequested = false;
    Q_EMIT refused(why);
}

void WorkflowSession::takeLock(const QString &cluster, const QString &id,
                               std::function<void(const QString &refusal)> done)
{
    QString host;
    QString error;
    const QString path = ClusterLock::pathFor(m_context.runner.inventory, cluster, &host, &error);
    if (path.isEmpty())
        return done(error);
    const auto transportFor = [this, host] {
        return m_context.runner.transportFor ? m_context.runner.transportFor(host) : nullptr;
    };
    const QString unreachable = u"host %1 cannot be reached to take the cluster lock"_s.arg(host);
    if (!transportFor())
        return done(unreachable);
    // Audited before the host is touched: a console killed once the lock is
    // there leaves an entry naming it (and the journal abandon releases it by).
    history::AuditEntry entry;
    entry.kind = u"workflow"_s;
    entry.host = host;
    entry.workflow = id;
    entry.action = u"lock-take"_s;
    entry.detail = u"taking the cluster lock %1 on %2 for cluster %3"_s.arg(path, host, cluster);
    audit(entry, [this, transportFor, unreachable, path, id, entry,
                  done = std::move(done)](bool ok, const QString &auditError) {
        if (!ok)
            return done(
                u"the audit entry could not be written (%1): nothing was run"_s.arg(auditError));
        remote::Transport *transport = transportFor(); // the inventory may have changed
        if (!transport)
            return done(unreachable);
        m_lock = std::make_unique<ClusterLock>(transport, path);
        const ClusterLock::Holder me{
            history::AuditLog::currentUser(), QSysInfo::machineHostName(), {}, {}, id};
        m_lock->take(
            me, m_context.lockValidity, [this, entry, done](const ClusterLock::Result &taken) {
                if (taken.ok)
                    return done(QString());
                m_lock.reset();
                const QString refusal =
                    taken.error + u" (nothing was run; `opsdeck-cli lock status` shows it)"_s;
                history::AuditEntry notTaken = entry;
                notTaken.action = u"lock-not-taken"_s;
                notTaken.detail = refusal;
                audit(notTaken, [refusal, done](bool, const QString &) { done(refusal); });
            });
    });
}

void WorkflowSession::releaseLock(const QString &id,
                                  std::function<void(const QString &problem)> then)
{
    if (!m_lock)
        return then(QString());
    m_lock->release(id, [this, then = std::move(then)](const ClusterLock::Result &released) {
        m_lock.reset();
        then(released.ok ? QString() : released.error);
    });
}

void WorkflowSession::run(const WorkflowPlan &plan, const Confirmation &confirmation)
{
    if (running())
        return refuse(u"a workflow is already running in this console"_s);
    if (const QString refusedBy = refusal(plan, confirmation); !refusedBy.isEmpty())
        return refuse(refusedBy);
    m_starting = true;
    const QString id = WorkflowJournal::newId(plan.kind);
    // The journal before the lock: a run killed while it takes the lock is
    // found unfinished, and abandoning it releases the lock it names.
    QString error;
    auto journal = WorkflowJournal::create(m_context.dataDir, plan, &error, id);
    if (journal)
        m_claim = WorkflowJournal::claim(journal->path(), &error);
    if (!journal || m_claim < 0) {
        m_starting = false;
        return refuse(error + u": nothing was run"_s);
    }
    // One workflow per cluster at a time, whoever runs it from wherever.
    takeLock(plan.cluster, id,
             [this, plan, confirmation, journal = *journal](const QString &refusal) mutable {
                 if (refusal.isEmpty())
                     return start(plan, std::move(journal), confirmation, 1);
                 m_starting = false;
                 // Nothing of it ran: its journal goes (the audit keeps
                 // "lock-not-taken"), or ends, never offered for resume.
                 QString error;
                 if (!QFile::remove(journal.path()) &&
                     !journal.append({{u"event"_s, u"end"_s},
                                      {u"outcome"_s, u"abandoned"_s},
                                      {u"detail"_s, QString(u"not run: "_s + refusal)}},
                                     &error))
                     spdlog::warn("{}", error.toStdString());
                 releaseClaim();
                 refuse(refusal);
             });
}

void WorkflowSession::start(const WorkflowPlan &plan, WorkflowJournal journal,
                            const Confirmation &confirmation, int from)
{
    m_id = journal.id();
    m_plan = plan;
    m_edited = false;
    WorkflowRunner::Context context = m_context.runner;
    // The operator confirmed the whole plan, its verification's load included.
    context.verification.batch.confirmation = plan.cluster;
    // The verification goes into the history the next plan's evidence reads.
    const QString database = history::HistoryStore::pathIn(m_context.dataDir);
    context.recordVerification = [database](const probes::VerificationResult &result) {
        history::HistoryStore store(database);
        if (!store.open() || !history::recordVerification(store, result))
            spdlog::warn("the workflow's verification was not recorded in {}: {}",
                         database.toStdString(), store.lastError().toStdString());
    };
    // Every entry written here also goes to the copy on the cluster's host,
    // once it is in the local log (the record OpsDeck verifies).
    m_hostAudit.reset();
    m_hostAuditProblem.clear();
    m_copyProblemAudited = false;
    QString host;
    QString error;
    const QString copy =
        HostAuditLog::pathFor(m_context.runner.inventory, plan.cluster, &host, &error);
    if (remote::Transport *transport = copy.isEmpty() || !m_context.runner.transportFor
                                           ? nullptr
                                           : m_context.runner.transportFor(host))
        m_hostAudit = std::make_unique<HostAuditLog>(transport, copy);
    else
        m_hostAuditProblem = u"no audit copy on the cluster's host: "_s +
                             (error.isEmpty() ? u"host %1 cannot be reached"_s.arg(host) : error);
    context.audit = [this, local = m_context.runner.audit](
                        const history::AuditEntry &entry, std::function<void(bool, QString)> done) {
        local(entry, [this, entry, done = std::move(done)](bool ok, const QString &why) {
            if (ok && m_hostAudit)
                m_hostAudit->append(entry, [this](const QString &problem) {
                    if (m_hostAuditProblem.isEmpty())
                        m_hostAuditProblem = problem;
                });
            done(ok, why);
        });
    };
    m_runner = std::make_unique<WorkflowRunner>(context);
    WorkflowRunner *runner = m_runner.get();
    connect(runner, &WorkflowRunner::stepStarted, this, &WorkflowSession::stepStarted);
    connect(runner, &WorkflowRunner::stepOutput, this, &WorkflowSession::stepOutput);
    connect(runner, &WorkflowRunner::stepFinished, this,
            [this](int n, bool ok, const QString &detail, qint64 ms) {
                for (const WorkflowPlan::KnobEdit &edit : m_plan->knobEdits)
                    m_edited = m_edited || (ok && edit.n == n);
                Q_EMIT stepFinished(n, ok, detail, ms);
            });
    connect(runner, &WorkflowRunner::finished, this,
            [this](WorkflowRunner::Outcome outcome, const QString &detail) {
                // The copy on the host holds the last entry before the lock
                // goes, or gives up after kAuditCopyDrain (or on cancel()).
                if (!m_hostAudit)
                    return end(outcome, detail);
                m_draining = true;
                QTimer::singleShot(kAuditCopyDrain, this, [this, id = m_id] {
                    if (id == m_id) // not a later workflow's copy
                        dropAuditCopy();
                });
                m_hostAudit->whenIdle([this, outcome, detail] {
                    if (!m_draining)
                        return;
                    m_draining = false;
                    end(outcome, detail);
                });
            });
    m_starting = false;
    m_rollbackPending = false;
    Q_EMIT started(m_id, plan, from);
    runner->run(plan, std::move(journal), confirmation, from);
    // Cancelled while it took its lock: journaled as cancelled at its first step.
    if (std::exchange(m_cancelRequested, false))
        runner->cancel();
}

void WorkflowSession::dropAuditCopy()
{
    if (!m_draining || !m_hostAudit)
        return;
    const QString path = m_hostAudit->path();
    // dropPending() runs whenIdle()'s callback, which ends the workflow.
    const int dropped = m_hostAudit->dropPending();
    if (dropped > 0 && m_hostAuditProblem.isEmpty())
        m_hostAuditProblem =
            u"%1 audit entries were not copied to %2 on the cluster's host (no answer)"_s
                .arg(dropped)
                .arg(path);
}

void WorkflowSession::end(WorkflowRunner::Outcome outcome, const QString &detail)
{
    // A copy that failed is said in the local log too, before the lock goes.
    if (!m_hostAuditProblem.isEmpty() && !m_copyProblemAudited) {
        m_copyProblemAudited = true;
        history::AuditEntry entry;
        entry.kind = u"workflow"_s;
        entry.host = m_context.runner.inventory.path;
        entry.workflow = m_id;
        entry.action = u"audit-copy-failed"_s;
        entry.detail = m_hostAuditProblem;
        return audit(entry,
                     [this, outcome, detail](bool, const QString &) { end(outcome, detail); });
    }
    const QString id = m_id;
    releaseLock(id, [this, outcome, detail, id](const QString &problem) {
        releaseClaim();
        // The runner goes after its last signal has been handled.
        if (m_runner)
            m_runner.release()->deleteLater();
        QString said = detail;
        if (!problem.isEmpty())
            said += u"; the cluster lock was not released: "_s + problem;
        if (!m_hostAuditProblem.isEmpty())
            said += u"; "_s + m_hostAuditProblem;
        // Never a rollback of a rollback: that one is left to the operator.
        const bool wanted = outcome == WorkflowRunner::Outcome::Failed && m_context.autoRollback &&
                            m_edited && !m_rollingBack && m_plan;
        const bool rollBack = wanted && !m_cancelRequested;
        if (wanted && !rollBack)
            said += u"; not rolled back automatically: cancelled (Roll back…, or `opsdeck-cli "
                    "workflow run restore-knob`, restores its backups)"_s;
        m_rollingBack = false;
        m_cancelRequested = false;
        m_rollbackPending = rollBack;
        if (rollBack)
            Q_EMIT rollingBack(id);
        Q_EMIT finished(outcome, said, id);
        if (rollBack)
            rollBackAutomatically(*m_plan, id);
    });
}

void WorkflowSession::rollBackAutomatically(const WorkflowPlan &failed, const QString &id)
{
    const QString knob = failed.knob.section(u'=', 0, 0);
    history::AuditEntry entry;
    entry.kind = u"workflow"_s;
    entry.host = m_context.runner.inventory.path;
    entry.workflow = id;
    entry.action = u"rollback-automatic"_s;
    entry.detail = u"auto_rollback is set: restore-knob %1 on cluster %2 from the backups "
                   "workflow %3 made"_s.arg(knob, failed.cluster, id);
    m_starting = true; // nothing else begins meanwhile
    audit(entry, [this, failed, id, knob](bool ok, const QString &why) {
        m_starting = false;
        if (m_cancelRequested)
            return refuse(u"the automatic rollback of workflow %1 was cancelled before it began: "
                          "nothing restored"_s.arg(id));
        if (!ok)
            return refuse(u"the automatic rollback did not begin: its audit entry was not "
                          "written (%1)"_s.arg(why));
        const quint64 generation = m_planGeneration + 1;
        auto planned = std::make_shared<QMetaObject::Connection>();
        auto failedToPlan = std::make_shared<QMetaObject::Connection>();
        *planned = connect(this, &WorkflowSession::planned, this,
                           [this, planned, failedToPlan, id, generation](const WorkflowPlan &plan) {
                               disconnect(*planned);
                               disconnect(*failedToPlan);
                               if (generation != m_planGeneration)
                                   return;
                               if (m_cancelRequested)
                                   return refuse(u"the automatic rollback of workflow %1 was "
                                                 "cancelled before it began: nothing "
                                                 "restored"_s.arg(id));
                               m_rollingBack = true;
                               // The operator confirmed the failed run and
                               // set auto_rollback: going back to the backup
                               // needs no second answer.
                               run(plan, {plan.confirmationTarget(),
                                          u"automatic rollback of workflow %1"_s.arg(id), true});
                           });
        *failedToPlan =
            connect(this, &WorkflowSession::planFailed, this,
                    [this, planned, failedToPlan](const QString &error) {
                        disconnect(*planned);
                        disconnect(*failedToPlan);
                        refuse(u"the automatic rollback could not be planned: "_s + error);
                    });
        plan({WorkflowKind::RestoreKnob, failed.cluster, failed.service, knob, {}, id, false});
    });
}

std::optional<WorkflowJournal::Summary> WorkflowSession::unfinishedOrRefuse(const QString &id,
                                                                            const QString &verb)
{
    QString error;
    auto found = WorkflowJournal::find(m_context.dataDir, id, &error);
    if (!found)
        refuse(error);
    else if (!found->resumable())
        refuse(u"workflow %1 already ended (%2): nothing to %3"_s.arg(found->id, found->outcome,
                                                                      verb));
    return found && found->resumable() ? found : std::nullopt;
}

void WorkflowSession::resume(const QString &id, const Confirmation &confirmation)
{
    if (running())
        return refuse(u"a workflow is already running in this console"_s);
    const auto found = unfinishedOrRefuse(id, u"resume"_s);
    if (!found)
        return;
    QString error;
    const QJsonObject &was = found->plan;
    const auto kind = workflowKindFromName(was.value(u"kind"_s).toString());
    if (!kind)
        return refuse(u"workflow %1 is of an unknown kind '%2'"_s.arg(
            found->id, was.value(u"kind"_s).toString()));
    if (editsKnobs(*kind))
        return refuse(
            u"workflow %1 edits a serve script: it is not resumed (its edit was planned "
            "against the script as it was). Check the script (`opsdeck-cli knobs backups`), "
            "abandon it, then run restart or co-restart"_s.arg(found->id));
    const QString cluster = was.value(u"cluster"_s).toString();
    // Planned again as it was run: its failure watch as long as it was.
    RunbookPlanner::Timings timings = m_context.timings;
    timings.failureWatchS = 0; // a run without a watch step had none (--failure-watch 0)
    bool drained = false;
    for (const QJsonValue &value : was.value(u"steps"_s).toArray()) {
        const QJsonObject step = value.toObject();
        if (step.value(u"action"_s).toString() == u"watch-failures")
            timings.failureWatchS = step.value(u"watch_s"_s).toInt();
        if (step.value(u"action"_s).toString() == u"drain") {
            drained = true;
            timings.drainS = step.value(u"deadline_s"_s).toInt();
        }
    }
    auto plan = RunbookPlanner::plan(m_context.runner.inventory,
                                     {*kind,
                                      cluster,
                                      was.value(u"service"_s).toString(),
                                      was.value(u"knob"_s).toString(),
                                      QString(),
                                      {},
                                      drained},
                                     &error, timings);
    if (!plan)
        return refuse(error);
    // The same steps, or the journal's step numbers mean nothing.
    // Nor what the stops check (a pid file or serve script edited since): a
    // journal that does not say is not resumed either.
    const QJsonObject replanned = plan->json();
    if (replanned.value(u"steps"_s) != was.value(u"steps"_s) ||
        replanned.value(u"targets"_s) != was.value(u"targets"_s))
        return refuse(
            u"%1 no longer gives the plan workflow %2 ran (the inventory changed): "
            "abandon it and plan again"_s.arg(m_context.runner.inventory.path, found->id));
    // Every guard again, as for a new run: the inventory, the evidence and
    // who runs it may all have changed since.
    refreshEvidence(*plan);
    if (const QString refusedBy = refusal(*plan, confirmation); !refusedBy.isEmpty())
        return refuse(refusedBy);
    // Never two processes on one workflow: a second resume, or one of a
    // workflow still running elsewhere, is refused.
    QString claimError;
    const int claim = WorkflowJournal::claimAsRead(*found, &claimError);
    if (claim < 0)
        return refuse(claimError);
    m_claim = claim;
    m_starting = true;
    const WorkflowJournal::Summary summary = *found;
    // Still ours when this workflow took it; else it must be free.
    takeLock(
        cluster, summary.id, [this, summary, plan = *plan, confirmation](const QString &refusal) {
            if (!refusal.isEmpty()) {
                m_starting = false;
                releaseClaim();
                return refuse(refusal);
            }
            history::AuditEntry entry;
            entry.kind = u"workflow"_s;
            entry.host = plan.cluster;
            entry.workflow = summary.id;
            entry.action = u"resume-chosen"_s;
            entry.detail =
                u"workflow %1 (%2 of %3), stopped at step %4: resumed from step %5"_s.arg(
                    summary.id, workflowKindName(plan.kind), plan.confirmationTarget(),
                    QString::number(summary.lastStarted), QString::number(summary.resumeFrom()));
            audit(entry, [this, summary, plan, confirmation](bool ok, const QString &auditError) {
                QString error = auditError;
                auto journal = WorkflowJournal::reopen(summary);
                if (!ok ||
                    !journal.append({{u"event"_s, u"resume"_s}, {u"from"_s, summary.resumeFrom()}},
                                    &error)) {
                    return releaseLock(summary.id, [this, error](const QString &) {
                        m_starting = false;
                        releaseClaim();
                        refuse(error + u": nothing was run"_s);
                    });
                }
                start(plan, std::move(journal), confirmation, summary.resumeFrom());
            });
        });
}

void WorkflowSession::abandon(const QString &id)
{
    if (running())
        return refuse(u"a workflow is running in this console: cancel it first"_s);
    const auto found = unfinishedOrRefuse(id, u"abandon"_s);
    if (!found)
        return;
    const QJsonObject &was = found->plan;
    history::AuditEntry entry;
    entry.kind = u"workflow"_s;
    entry.host = was.value(u"cluster"_s).toString();
    entry.workflow = found->id;
    entry.action = u"abandoned"_s;
    entry.detail =
        u"workflow %1 (%2 of %3), stopped at step %4: abandoned, nothing more is run"_s.arg(
            found->id, was.value(u"kind"_s).toString(), was.value(u"confirm"_s).toString(),
            QString::number(found->lastStarted));
    const WorkflowJournal::Summary summary = *found;
    // Not while it still runs elsewhere: held until the abandon is done.
    QString claimError;
    const int claimed = WorkflowJournal::claimAsRead(summary, &claimError);
    if (claimed < 0)
        return refuse(claimError);
    const std::shared_ptr<void> claim(nullptr,
                                      [claimed](void *) { WorkflowJournal::release(claimed); });
    audit(entry, [this, summary, claim](bool ok, const QString &auditError) {
        if (!ok)
            return refuse(
                u"the audit entry could not be written (%1): nothing done"_s.arg(auditError));
        QString error;
        auto journal = WorkflowJournal::reopen(summary);
        if (!journal.append({{u"event"_s, u"end"_s},
                             {u"outcome"_s, u"abandoned"_s},
                             {u"detail"_s, u"abandoned at step %1"_s.arg(summary.lastStarted)}},
                            &error)) {
            // The entry above said it was abandoned: said again, that it was not.
            history::AuditEntry failed;
            failed.kind = u"workflow"_s;
            failed.host = summary.plan.value(u"cluster"_s).toString();
            failed.workflow = summary.id;
            failed.action = u"abandon-failed"_s;
            failed.detail = error + u": the workflow is not abandoned, its lock not released"_s;
            return audit(failed, [this, error, claim](bool, const QString &) { refuse(error); });
        }
        // The lock a killed run left, when it names this workflow.
        QString host;
        const QString cluster = summary.plan.value(u"cluster"_s).toString();
        const QString path =
            ClusterLock::pathFor(m_context.runner.inventory, cluster, &host, &error);
        remote::Transport *transport = path.isEmpty() || !m_context.runner.transportFor
                                           ? nullptr
                                           : m_context.runner.transportFor(host);
        if (!transport)
            return Q_EMIT abandoned(summary.id, summary.lastStarted);
        m_lock = std::make_unique<ClusterLock>(transport, path);
        releaseLock(summary.id, [this, summary, claim](const QString &problem) {
            if (!problem.isEmpty())
                Q_EMIT refused(problem);
            Q_EMIT abandoned(summary.id, summary.lastStarted);
        });
    });
}

void WorkflowSession::releaseClaim()
{
    WorkflowJournal::release(std::exchange(m_claim, -1));
}

void WorkflowSession::cancel()
{
    // Kept for what comes next: the end (no automatic rollback), a rollback
    // being planned, a workflow taking its lock.
    if (m_draining || m_starting || m_rollbackPending)
        m_cancelRequested = true;
    if (m_draining)
        return dropAuditCopy(); // the steps ended: only the copy is waited for
    if (m_runner)
        m_runner->cancel();
}

QVector<WorkflowJournal::Summary> WorkflowSession::unfinished() const
{
    QVector<WorkflowJournal::Summary> left;
    for (const auto &journal : WorkflowJournal::list(m_context.dataDir))
        if (!journal.finished)
            left << journal;
    return left;
}

} // namespace opsdeck::workflows
