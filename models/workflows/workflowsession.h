#pragma once

#include "runbookplanner.h"
#include "workflowguard.h"
#include "workflowjournal.h"
#include "workflowrunner.h"

#include <QObject>
#include <chrono>
#include <memory>

namespace opsdeck::knobs {
class KnobFiles;
}

namespace opsdeck::workflows {

class ClusterLock;
class HostAuditLog;

/// One place where a workflow is planned, guarded and run, the same way in
/// the window and in `opsdeck-cli workflow`: the plan (the knob edits read
/// from the hosts first, then the evidence of the data dir's history), the
/// guards (WorkflowGuard; armed is the inventory's `armed: true` or
/// armForSession()), the cluster lock on the target host, the journal, the
/// runner; resume and abandon of an unfinished workflow.
///
/// Thread: the one its transports live in (the GUI or the CLI's main thread),
/// with an event loop; every answer is a signal emitted there. One workflow
/// at a time per session.
class WorkflowSession : public QObject
{
    Q_OBJECT
public:
    struct Context
    {
        /// Transports, the HTTP engine, the audit sink, markers, the
        /// verification's settings (its inventory is the one given here).
        WorkflowRunner::Context runner;
        /// A host's KnobFiles for revert-knob / restore-knob (nullptr: unreachable).
        std::function<knobs::KnobFiles *(const QString &host)> knobFilesFor;
        /// The runbooks' deadlines and the failure watch after a co-restart.
        RunbookPlanner::Timings timings;
        /// Journals and the evidence's history: the data dir.
        QString dataDir;
        /// How long a lock taken here is valid: long enough for a co-restart
        /// of engines that load for many minutes; older, it shows as stale.
        std::chrono::seconds lockValidity = std::chrono::hours(4);
        /// A revert-knob or restore-knob that fails after one of its edits
        /// is rolled back at once, unasked: a restore-knob workflow from the
        /// backups it made (rollingBack(), then its own run), confirmed by
        /// the failed run's confirmation and audited as automatic. Off by
        /// default: the window offers Roll back… and the CLI prints it.
        /// autoRollbackSetting() reads it from the settings.
        bool autoRollback = false;
    };
    struct Request
    {
        WorkflowKind kind = WorkflowKind::Restart;
        QString cluster;
        QString service; ///< restart: the one service; revert/restore: only this one
        QString knob;    ///< revert-knob / restore-knob: KEY or KEY=VALUE
        QString backup;  ///< revert-knob / restore-knob: a backup's path
        /// restore-knob: only the scripts this workflow edited, each from the
        /// backup it made (the automatic rollback of a failed run)
        QString undoing;
        /// restart / co-restart: drain each engine through the router first
        /// (RunbookPlanner::Request::drain)
        bool drain = false;
    };

    explicit WorkflowSession(QObject *parent = nullptr);
    ~WorkflowSession() override;

    /// `auto_rollback` in the `[workflows]` group of opsdeck.conf ("true" or
    /// "false", strictly; anything else is false): Context::autoRollback.
    static bool autoRollbackSetting();

    /// A newly opened inventory and how to reach its hosts; forgets the
    /// arming of the previous one. Not while running().
    void setContext(Context context);
    const Context &context() const { return m_context; }

    /// Plans `request`: planned() or planFailed() (why: the cluster, the
    /// service, the script, the knob).
    void plan(const Request &request);
    /// Reads the evidence into `plan` again (EvidenceGuard), as it is now.
    void refreshEvidence(WorkflowPlan &plan) const;

    /// Armed: `armed: true` in the inventory, or armed for this session.
    bool armed() const;
    /// What must be typed to arm: the inventory file's name ("demo.yaml").
    QString armingConfirmation() const;
    /// Arms the inventory for this session when `typed` is
    /// armingConfirmation(), after the audit entry is written; armedChanged()
    /// or refused().
    void armForSession(const QString &typed);
    /// Empty when `plan` may run now; else why not (WorkflowGuard's words).
    QString refusal(const WorkflowPlan &plan, const Confirmation &confirmation) const;

    /// Guards `plan` again, takes the cluster lock, starts its journal and
    /// runs it: refused() (nothing was run) or the runner's signals, then
    /// finished() once the lock is released.
    void run(const WorkflowPlan &plan, const Confirmation &confirmation);
    /// The unfinished (or failed, cancelled) workflow `id` (empty: the newest
    /// such), planned again from this inventory, guarded as a new run, run
    /// from the step that did not end well. A workflow that edits a serve
    /// script is refused (its edit was planned against the script as it was).
    void resume(const QString &id, const Confirmation &confirmation);
    /// Ends workflow `id` as abandoned (audited, journaled) and releases the
    /// lock it left; abandoned() or refused().
    void abandon(const QString &id);
    /// Cancels the running step (WorkflowRunner::cancel()); once the steps
    /// ended, stops waiting for the audit copy on the host; before a
    /// workflow's first step (its lock, its journal) or an automatic
    /// rollback's, that workflow is cancelled as it starts, and a rollback not
    /// yet begun is not begun (refused(), saying so).
    void cancel();
    bool running() const { return m_runner != nullptr || m_starting; }
    /// The workflows of the data dir that did not end well, newest first
    /// (what a console that died mid-workflow left).
    QVector<WorkflowJournal::Summary> unfinished() const;

Q_SIGNALS:
    void planned(const opsdeck::workflows::WorkflowPlan &plan);
    void planFailed(const QString &error);
    void armedChanged(bool armed);
    /// A guard refused or something needed before the first step failed
    /// (the lock, the journal, the audit): nothing was run.
    void refused(const QString &why);
    /// The workflow `id` begins (the lock is held, the journal written).
    void started(const QString &id, const opsdeck::workflows::WorkflowPlan &plan, int from);
    void stepStarted(int n, const QString &title);
    void stepOutput(int n, const QString &line);
    void stepFinished(int n, bool ok, const QString &detail, qint64 ms);
    /// Once per started(); the lock was released (or why not, in `detail`).
    void finished(opsdeck::workflows::WorkflowRunner::Outcome outcome, const QString &detail,
                  const QString &id);
    void abandoned(const QString &id, int atStep);
    /// Emitted just before finished() of the failed workflow `failedId` when
    /// Context::autoRollback rolls it back: another run follows (started(),
    /// ...; finished()), or refused() when it cannot begin.
    void rollingBack(const QString &failedId);

private:
    void audit(const history::AuditEntry &entry, std::function<void(bool, QString)> done);
    /// Audits taking the lock for `id` ("lock-take"), takes it, then calls
    /// `done` with an empty refusal; with the refusal in words when the entry
    /// cannot be written (the host untouched) or the lock cannot be taken
    /// (audited as "lock-not-taken").
    void takeLock(const QString &cluster, const QString &id,
                  std::function<void(const QString &refusal)> done);
    void start(const WorkflowPlan &plan, WorkflowJournal journal, const Confirmation &confirmation,
               int from);
    void releaseLock(const QString &id, std::function<void(const QString &problem)> then);
    /// Gives up on the copy's entries not yet on the host (said, audited).
    void dropAuditCopy();
    /// The runner ended: the lock released, then finished().
    void end(WorkflowRunner::Outcome outcome, const QString &detail);
    void refuse(const QString &why);
    /// Gives up m_claim.
    void releaseClaim();
    /// Context::autoRollback: audits it, plans restore-knob for `failed`'s
    /// knob from the backups of workflow `id` and runs it.
    void rollBackAutomatically(const WorkflowPlan &failed, const QString &id);
    /// The journal `id` (empty: the newest) when it did not end well; else
    /// refused() says why (`verb`: "resume", "abandon") and nothing.
    std::optional<WorkflowJournal::Summary> unfinishedOrRefuse(const QString &id,
                                                               const QString &verb);

    Context m_context;
    bool m_armedForSession = false;
    bool m_starting = false; ///< between run() and started() (the lock, the journal)
    /// WorkflowJournal::claim() of the workflow run or resumed here, from
    /// before its lock is taken until its end (-1: none).
    int m_claim = -1;
    std::unique_ptr<ClusterLock> m_lock;
    std::unique_ptr<WorkflowRunner> m_runner;
    /// The run's copy of its audit entries on the cluster's host.
    std::unique_ptr<HostAuditLog> m_hostAudit;
    QString m_hostAuditProblem; ///< the first append that failed, said at the end
    bool m_copyProblemAudited = false;
    bool m_draining = false; ///< the steps ended; the copy's last entries are awaited
    /// How long the copy's last entries are waited for after the steps end.
    static constexpr std::chrono::seconds kAuditCopyDrain{10};
    QString m_id;
    std::optional<WorkflowPlan> m_plan; ///< the running workflow's
    bool m_edited = false;              ///< one of its edit steps ended well
    bool m_rollingBack = false;         ///< it is an automatic rollback
    bool m_rollbackPending = false;     ///< an automatic rollback is being audited, planned
    bool m_cancelRequested = false;     ///< cancel() came with no step to cancel
    quint64 m_planGeneration = 0;       ///< answers of an earlier plan() are dropped
};

} // namespace opsdeck::workflows
