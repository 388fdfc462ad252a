#pragma once

#include "auditentry.h"
#include "inventory.h"
#include "marker.h"
#include "processcontrol.h"
#include "stagedverification.h"
#include "workflowguard.h"
#include "workflowjournal.h"
#include "workflowplan.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <functional>
#include <memory>

namespace opsdeck::probes {
class ProbeEngine;
}
namespace opsdeck::threads {
class WorkerThread;
}
namespace opsdeck::remote {
class RemoteFiles;
}

namespace opsdeck::workflows {

/// Runs a guarded plan (WorkflowGuard first: this class does not ask) step by
/// step, never blocking its thread: commands go through the hosts'
/// transports (ProcessControl for stop and start, with the pid file's
/// identity checked), HTTP checks through the probe engine, the staged
/// verification on a worker thread of its own.
///
/// Every leaf, in order: "step-start" in the journal (fsynced); an audit
/// entry naming the step and its exact commands, written before anything
/// runs (an entry that cannot be written stops the workflow there, nothing
/// done); the action, bounded by the step's deadline; "step-end" in the
/// journal and an audit entry with the result, its duration and the output's
/// tail. A failed step stops the sequence it is in (OnError::Stop), and the
/// workflow ends "failed", naming the step; cancel() ends it "cancelled" at
/// once, in a known state: the step that was running is journaled as ended
/// not ok ("cancelled"), later steps never start.
///
/// Thread: the thread its transports live in (the GUI or the CLI's main
/// thread), with an event loop. The context's callbacks are called there.
class WorkflowRunner : public QObject
{
    Q_OBJECT
public:
    enum class Outcome
    {
        Succeeded,
        Failed,
        Cancelled
    };
    /// "succeeded", "failed", "cancelled" (the journal's and the CLI's words).
    static QString outcomeName(Outcome outcome);

    /// Writes an audit entry and says whether it is on disk (`ok`) and why
    /// not; may answer later (the window's auditor thread) or at once.
    using AuditSink = std::function<void(const history::AuditEntry &entry,
                                         std::function<void(bool ok, QString error)> done)>;

    struct Context
    {
        inventory::Inventory inventory;
        processes::ProcessControl::TransportFor transportFor;
        probes::ProbeEngine *engine =
            nullptr; ///< HTTP checks and the verification; outlives the runner
        AuditSink audit;
        probes::StagedVerification::Settings verification;
        secrets::SecretStore *store = nullptr; ///< API keys for the verification (nullptr: none)
        /// A host's files, for knob edits (nullptr: unreachable); the same
        /// host's transport comes from transportFor.
        std::function<remote::RemoteFiles *(const QString &host)> filesFor;
        /// Adds a history marker; its id, or nothing and why not.
        std::function<std::optional<qint64>(const history::Marker &marker, QString *error)> marker;
        /// Records a finished staged verification in history (a `checks`
        /// row and a marker, as `opsdeck-cli verify` does): the evidence of
        /// the next plan reads it. Empty: not recorded.
        std::function<void(const probes::VerificationResult &result)> recordVerification;
        /// How often waits poll, ms (ports, health, readiness): as often as a
        /// person's `curl` loop, so that OpsDeck adds no more wait than they
        /// would (bench_corestart).
        int pollIntervalMs = 100;
    };

    explicit WorkflowRunner(Context context, QObject *parent = nullptr);
    ~WorkflowRunner() override;

    /// Runs `plan` (numbered) from leaf `from` (1: the beginning; a resume
    /// passes the step to run again), writing to `journal`. The first audit
    /// entry holds the plan and `confirmation` (who, what was typed, the
    /// reason, whether the evidence was acknowledged).
    void run(const WorkflowPlan &plan, WorkflowJournal journal, const Confirmation &confirmation,
             int from = 1);
    /// Stops after the current wait or command (which is cancelled); finished()
    /// comes with Outcome::Cancelled.
    void cancel();

Q_SIGNALS:
    void stepStarted(int n, const QString &title);
    /// A line of what a step is doing or saw (a command's progress, a status).
    void stepOutput(int n, const QString &line);
    void stepFinished(int n, bool ok, const QString &detail, qint64 ms);
    /// Once; `detail` names the failed step and why, or what was verified.
    void finished(opsdeck::workflows::WorkflowRunner::Outcome outcome, const QString &detail);

private:
    struct Leaf;
    using Done = std::function<void(bool ok)>;
    void runNode(const WorkflowStep &node, Done done);
    void runSequence(const WorkflowStep &node, int index, Done done);
    void runParallel(const WorkflowStep &node, Done done);
    void runLeaf(const WorkflowStep &step, Done done);
    void act(const std::shared_ptr<Leaf> &leaf);
    void endLeaf(const std::shared_ptr<Leaf> &leaf, bool ok, const QString &detail);
    void finish(bool ok);

    // The actions (workflowrunneractions.cpp).
    /// A ProcessControl for the leaf: its lines are the step's output, and it
    /// goes when the leaf ends.
    processes::ProcessControl *processControl(const std::shared_ptr<Leaf> &leaf,
                                              const processes::ProcessControl::Settings &settings);
    /// The router of the plan's cluster; nullptr after ending the leaf
    /// (failed, "has no router") when the inventory names none.
    const inventory::Service *clusterRouter(const std::shared_ptr<Leaf> &leaf);
    void stopService(const std::shared_ptr<Leaf> &leaf);
    void startService(const std::shared_ptr<Leaf> &leaf);
    void waitExited(const std::shared_ptr<Leaf> &leaf);
    void waitHealthy(const std::shared_ptr<Leaf> &leaf);
    void checkBootstrap(const std::shared_ptr<Leaf> &leaf, bool waitForHealth);
    void waitRouterReady(const std::shared_ptr<Leaf> &leaf);
    void verify(const std::shared_ptr<Leaf> &leaf);
    void watchFailures(const std::shared_ptr<Leaf> &leaf); ///< workflowrunnerwatch.cpp
    void editKnob(const std::shared_ptr<Leaf> &leaf);
    void addMarker(const std::shared_ptr<Leaf> &leaf);
    void drain(const std::shared_ptr<Leaf> &leaf);          ///< workflowrunnerdrain.cpp
    void registerWorker(const std::shared_ptr<Leaf> &leaf); ///< workflowrunnerdrain.cpp
    /// restart-proxy: whether the keep-alive stage says the stall is gone or
    /// persists, and where to look then ("" for other workflows).
    QString afterProxyRestart(const probes::VerificationResult &result) const;
    /// GETs `urls` at once (fresh connections); `then` gets the results, in
    /// order, on this thread; nothing when the leaf ended meanwhile.
    void getAll(const std::shared_ptr<Leaf> &leaf, const QVector<QUrl> &urls,
                std::function<void(const QVector<probes::ProbeResult> &)> then);
    /// One request (any kind); `then` gets its result on this thread, unless
    /// the leaf ended meanwhile.
    void send(const std::shared_ptr<Leaf> &leaf, const probes::ProbeRequest &request,
              std::function<void(const probes::ProbeResult &)> then);
    /// A worker the router marked failed for good: DELETE /workers/{id},
    /// then POST /workers with its url, type and bootstrap port (once per step).
    void reRegister(const std::shared_ptr<Leaf> &leaf, const inventory::Service &router,
                    const QJsonObject &worker);
    /// A line of the leaf's output: kept for its audit entry and shown live.
    void say(const std::shared_ptr<Leaf> &leaf, const QString &line);
    /// A wait step saw `service` healthy over HTTP: ends the leaf ok with
    /// `done` once its host shows the answer is the started process's (it,
    /// or one under it, holds the port: ManagedProcess::holdsPort), failed
    /// when another process serves the port or it no longer runs; asks
    /// again at the next healthy poll when that cannot be told yet.
    /// workflowrunnerserving.cpp.
    void confirmServing(const std::shared_ptr<Leaf> &leaf, const inventory::Service &service,
                        const QString &done);
    /// Calls `poll` now and every pollIntervalMs until the leaf ends.
    void repeat(const std::shared_ptr<Leaf> &leaf, std::function<void()> poll);

    Context m_context;
    WorkflowPlan m_plan;
    std::optional<WorkflowJournal> m_journal;
    int m_from = 1;
    bool m_cancelled = false;
    bool m_finished = false;
    QString m_failure;               ///< the first failed step's line, for finished()
    std::shared_ptr<Leaf> m_current; ///< a running leaf (the last started)
    QVector<std::shared_ptr<Leaf>> m_running;
    /// The verifications' threads, joined when the runner goes.
    QVector<std::shared_ptr<threads::WorkerThread>> m_verifications;
};

} // namespace opsdeck::workflows
